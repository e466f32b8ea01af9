// Lets Node's own type stripping run the benchmarks' TypeScript without tsx (a resolve hook in
// the loading thread, so plain-JavaScript dependencies such as ADK load at Node's full speed):
// a relative `./x.js` import that does not exist resolves to `./x.ts`.
// Usage: node --import ./src/ts-resolve-hook.ts src/server-child.ts ...
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (specifier.startsWith(".") && specifier.endsWith(".js"))
        return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
      throw error;
    }
  },
});
