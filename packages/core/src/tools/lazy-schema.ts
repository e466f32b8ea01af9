import type { z } from "zod";

/** A zod schema built on its first use. */
export type LazySchema<S extends z.ZodType = z.ZodType> = () => S;

/** How many lazy schemas this process has built (see `lazySchemasBuilt`). */
let built = 0;

/**
 * `build()`, called once, when the schema is first needed. Building a zod schema runs a good deal
 * of zod's code, and a module's top level runs for everyone who imports it, so agentkit's
 * packages build none at import (decision 0007): request bodies of routes a client may never
 * call, options of tools a program never makes.
 */
export function lazySchema<S extends z.ZodType>(build: () => S): LazySchema<S> {
  let schema: S | undefined;
  return () => {
    if (schema === undefined) {
      schema = build();
      built += 1;
    }
    return schema;
  };
}

/**
 * The number of lazy schemas built so far in this process: what lets a test tell that a warm-up
 * built the schemas a request needs, so the request builds none.
 */
export function lazySchemasBuilt(): number {
  return built;
}
