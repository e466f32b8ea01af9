// The few parts of oidc-provider (which ships no types) that the test OAuth server uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ uid: string; prompt: { name: string } }>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: Record<string, unknown>,
    ): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    Grant: new (init: {
      clientId: string;
      accountId: string;
    }) => {
      addOIDCScope(scope: string): void;
      addResourceScope(resource: string, scope: string): void;
      save(): Promise<string>;
    } & { find?: unknown };
    proxy: boolean;
  }
}
