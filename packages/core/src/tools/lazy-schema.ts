import type { z } from "zod";

/** A zod schema built on its first use. */
export type LazySchema<S extends z.ZodType = z.ZodType> = () => S;

/**
 * `build()`, called once, when the schema is first needed. Building a zod schema runs a good deal
 * of zod's code, and a module's top level runs for everyone who imports it, so agentkit's
 * packages build none at import (decision 0007): request bodies of routes a client may never
 * call, options of tools a program never makes.
 */
export function lazySchema<S extends z.ZodType>(build: () => S): LazySchema<S> {
  let schema: S | undefined;
  return () => (schema ??= build());
}
