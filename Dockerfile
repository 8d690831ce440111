# Production image: build once, serve with scripts/server.mjs (agent listener + Next.js). Migrations run at start-up.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 MEMORY_DATA_DIR=/data
COPY --from=build /app /app
VOLUME /data
EXPOSE 3000
CMD ["node", "--max-semi-space-size=64", "scripts/server.mjs"]
