# syntax=docker/dockerfile:1
# The production image of `agentkit api-server`: built packages only, production dependencies
# only, running as a non-root user. docs/deployment.md#production-image.
# Build: docker build -t agentkit .   Run: docker run -p 8000:8000 -v "$PWD/agents:/agents:ro" agentkit

FROM node:24-bookworm-slim AS build
WORKDIR /src
RUN corepack enable
COPY . .
# Build every package, then reinstall without dev dependencies (tsx, TypeScript, test tools).
RUN pnpm install --frozen-lockfile \
 && pnpm build \
 && pnpm install --frozen-lockfile --prod --config.confirmModulesPurge=false

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    AGENTKIT_RUNTIME=dist \
    AGENTKIT_HOST=0.0.0.0 \
    AGENTKIT_PORT=8000
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
RUN find packages -mindepth 2 -maxdepth 2 \( -name src -o -name test -o -name '*.tsbuildinfo' \) -exec rm -rf {} + \
 && mkdir /agents && chown node:node /agents
USER node
EXPOSE 8000
# Orchestrators: GET /healthz (liveness) and GET /readyz (readiness).
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.AGENTKIT_PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "apps/dev-server/bin/agentkit.mjs", "api-server", "/agents"]
