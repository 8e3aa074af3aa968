# A Tessera node. Build from the repository root: docker build -t tessera .
# docs/deployment.md runs it; docker-compose.yml runs three of them and the demo store.
#
# Stage 1 builds the workspace with its dev dependencies; the runtime stages get only what
# `pnpm deploy --prod` leaves: the package's dist/, proto/ and ui/ and its production dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN npx -y pnpm@12.21.0 install --frozen-lockfile \
  && npx -y pnpm@12.21.0 build \
  && npx -y pnpm@12.21.0 --filter @tessera/server deploy --prod --legacy /out/server \
  && npx -y pnpm@12.21.0 --filter @tessera/web-store deploy --prod --legacy /out/web-store

# The demo store (examples/web-store), for docker-compose.yml only: docker build --target store .
FROM node:20-bookworm-slim AS store
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /out/web-store /app
USER node
EXPOSE 3000
ENTRYPOINT ["node", "/app/dist/server/main.js"]

# The node image (the default target).
FROM node:20-bookworm-slim AS node
ENV NODE_ENV=production
# Owned by root and read-only to the node: only /data is writable by it.
COPY --from=build /out/server /app
COPY deploy/docker/entrypoint.sh /usr/local/bin/tessera-entrypoint
RUN groupadd --system --gid 10001 tessera \
  && useradd --system --uid 10001 --gid tessera --home-dir /data --no-create-home --shell /usr/sbin/nologin tessera \
  && mkdir -p /data && chown tessera:tessera /data && chmod 0750 /data \
  && chmod 0755 /usr/local/bin/tessera-entrypoint
USER 10001:10001
WORKDIR /data
# HTTP API and peer (gRPC) ports; data in the /data volume.
EXPOSE 7000 8000
VOLUME ["/data"]
# /health answers 200 once the node serves requests (no token needed). With TLS on the HTTP API,
# set TESSERA_HEALTH_URL=https://127.0.0.1:7000/health and NODE_EXTRA_CA_CERTS to the CA file.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.TESSERA_HEALTH_URL || 'http://127.0.0.1:7000/health', { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `start` binds every interface of the container and advertises its host name (never 0.0.0.0):
# deploy/docker/entrypoint.sh. Any other command runs the CLI as is (`docker run tessera admin status …`).
ENTRYPOINT ["/usr/local/bin/tessera-entrypoint"]
CMD ["start"]
