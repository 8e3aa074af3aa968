# A Tessera node. Build from the repository root: docker build -t tessera .
# Single stage on purpose: the image holds the built workspace as `pnpm install && pnpm build` leaves it.
FROM node:20-bookworm-slim
WORKDIR /src
RUN npm install -g pnpm@12.21.0
COPY . .
RUN pnpm install --frozen-lockfile && pnpm build
# HTTP and peer (gRPC) ports used by docker-compose.yml; data lives in /data.
EXPOSE 7000 8000
VOLUME ["/data"]
ENTRYPOINT ["node", "/src/packages/server/dist/cli/main.js"]
CMD ["start", "--node-id", "n0", "--http", "0.0.0.0:7000", "--peer", "0.0.0.0:8000", "--data-dir", "/data", "--insecure"]
