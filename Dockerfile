# Ruta in a container: `docker build -t ruta .` then
# `docker run -p 3000:3000 -v ruta-data:/data ruta` (SQLite and files in the volume), or pass
# -e DATABASE_URL=postgres://… for PostgreSQL. See docs/operations.md#docker.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# A compiler for better-sqlite3 12, the SQLite driver on Node 20 (an optional dependency: from Node
# 22 Ruta loads better-sqlite3 13, which ships prebuilt binaries; see ARCHITECTURE.md).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
# The web apps (console, courier, tracking assets) are built with the server: `build:web` dumps
# the OpenAPI document with scripts/, generates the client and runs Vite over web/.
COPY scripts ./scripts
COPY web ./web
# `npm ci` builds dist/ and dist/web (the prepare script); then only the runtime dependencies are kept.
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/ruta.db \
    RUTA_FILES_URL=file:/data/files
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM (docker stop) drains requests and webhook work; give it time with `docker stop -t 45`.
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=4", "dist/cli.js", "serve"]
