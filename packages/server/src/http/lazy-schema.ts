import type { z } from "zod";

/** A zod schema built on its first use. */
export type LazySchema<S extends z.ZodType = z.ZodType> = () => S;

/**
 * `build()`, called once, when the schema is first needed. Building a zod schema runs a good
 * deal of zod's code, and most of the server's schemas (request bodies of routes a client may
 * never call, live frames) are not needed before a server's first answer, so a start builds none.
 */
export function lazySchema<S extends z.ZodType>(build: () => S): LazySchema<S> {
  let schema: S | undefined;
  return () => (schema ??= build());
}
