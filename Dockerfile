# syntax=docker/dockerfile:1
# The gateway image: one image for the API, the worker, the simulator, migrations and the admin CLI.
#   docker build -t model-gateway .
#   docker run model-gateway                               # API (node dist/src/server.js)
#   docker run model-gateway node dist/workers/index.js    # worker
# Stage 1 compiles TypeScript; stage 2 holds production dependencies and dist/ only, runs as a
# non-root user, with node as PID 1 handling SIGTERM itself (graceful drain, see docs/operations.md).

FROM node:26-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workers ./workers
COPY scripts ./scripts
COPY console ./console
RUN npm run build && npm run build:console

FROM node:26-bookworm-slim AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:26-bookworm-slim
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0
WORKDIR /app
COPY --from=production-dependencies --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/console/dist ./console/dist
COPY --chown=node:node package.json ./
USER node
EXPOSE 8080
# Readiness: PostgreSQL and Redis reachable from this process (a worker container overrides it).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Exec form: node is PID 1 and receives SIGTERM directly; the API and the worker install their own handlers.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/server.js"]
