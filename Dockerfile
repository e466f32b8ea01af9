# syntax=docker/dockerfile:1
# The production image of `agentkit api-server`: built packages only, production dependencies
# only, running as a non-root user. docs/deployment.md#production-image.
# Build: docker build -t agentkit .
# Run:   docker run -p 8000:8000 -v "$PWD/agents:/agents:ro" -e AGENTKIT_AUTH=api-key \
#          -e AGENTKIT_API_KEYS="<key> <userId>" agentkit
# Tested without a container engine: apps/dev-server/test/production-image.test.ts.

FROM node:24-bookworm-slim AS build
WORKDIR /src
RUN corepack enable
COPY . .
# Build every package, then install again without dev dependencies (TypeScript, test tools):
# into empty node_modules, since a --prod install over a full one leaves the dev packages in
# node_modules/.pnpm.
RUN pnpm install --frozen-lockfile \
 && pnpm build \
 && find . -name node_modules -type d -prune -exec rm -rf {} + \
 && pnpm install --frozen-lockfile --prod

FROM node:24-bookworm-slim AS runtime
# Sessions and artifacts default to the state volume (the agents mount may be read-only);
# -e AGENTKIT_SESSION_SERVICE_URI=postgres://… / AGENTKIT_ARTIFACT_SERVICE_URI=s3://… replace them.
ENV NODE_ENV=production \
    AGENTKIT_RUNTIME=dist \
    AGENTKIT_HOST=0.0.0.0 \
    AGENTKIT_PORT=8000 \
    AGENTKIT_SESSION_SERVICE_URI=sqlite:///var/lib/agentkit/sessions.db \
    AGENTKIT_ARTIFACT_SERVICE_URI=file:///var/lib/agentkit/artifacts
WORKDIR /app
# The workspace layout the CLI's dist runtime expects: each package's package.json, dist and
# node_modules links, and the shared store they point into. No sources, no tests.
COPY --from=build /src/package.json /src/pnpm-workspace.yaml ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/packages ./packages
COPY --from=build /src/apps/dev-server/package.json ./apps/dev-server/package.json
COPY --from=build /src/apps/dev-server/bin ./apps/dev-server/bin
COPY --from=build /src/apps/dev-server/dist ./apps/dev-server/dist
COPY --from=build /src/apps/dev-server/node_modules ./apps/dev-server/node_modules
# Agents in /agents import @agentkit/* and zod by name; Node looks for them up from the agents'
# folders to /node_modules, which links to the server's own copies (the agents and the server
# must share one @agentkit/core: docs/agent-loading.md).
RUN find packages -mindepth 2 -maxdepth 2 \( -name src -o -name test -o -name '*.tsbuildinfo' \) -exec rm -rf {} + \
 && mkdir -p /node_modules/@agentkit /agents /var/lib/agentkit \
 && for p in packages/*; do ln -s "/app/$p" "/node_modules/@agentkit/${p#packages/}"; done \
 && ln -s "$(readlink -f packages/core/node_modules/zod)" /node_modules/zod \
 && chown node:node /agents /var/lib/agentkit
USER node
VOLUME /var/lib/agentkit
EXPOSE 8000
# Orchestrators: GET /healthz (liveness) and GET /readyz (readiness).
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.AGENTKIT_PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "apps/dev-server/bin/agentkit.mjs", "api-server", "/agents"]
