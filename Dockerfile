# authsvc in a container (docs/operations/containers-and-systemd.md).
#   docker build -t authsvc .
#   docker run -d -p 127.0.0.1:13431:13431 -v authsvc-data:/data \
#     -e AUTHSVC_AUTHDB=postgresql://authsvc:…@db:5432/authsvc \
#     -e AUTHSVC_SECRET=/run/secrets/authsvc_secret -e AUTHSVC_PIISALT=/run/secrets/authsvc_piisalt authsvc
# Every item is an AUTHSVC_* variable (npx authsvc --help lists them); options go after the image name.

# Stage 1: compile TypeScript. No C toolchain: argon2 and better-sqlite3 ship prebuilt N-API binaries.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY policy ./policy
COPY policy-schema ./policy-schema
# `npm ci` runs the prepare script, which builds dist/; then the dev dependencies go.
RUN npm ci && npm prune --omit=dev

# Stage 2: only what runs. The package layout is kept (dist/ beside src/config/confvars.json, policy/),
# as authsvc finds its shipped files relative to its own folder.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
  AUTHSVC_BASEDIR=/data \
  AUTHSVC_LISTEN=0.0.0.0 \
  AUTHSVC_PORT=13431 \
  AUTHSVC_WORKERS=1
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/src/config/confvars.json ./src/config/confvars.json
COPY --from=build /app/policy ./policy
COPY --from=build /app/policy-schema ./policy-schema
# The data folder (SQLite database, generated admin credentials) belongs to the unprivileged user.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 13431
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.AUTHSVC_PORT ?? 13431}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The `authsvc` command with the node flag of its first line (src/bin.ts, src/cluster/launch.ts).
ENTRYPOINT ["node", "--max-semi-space-size=4", "--v8-pool-size=1", "dist/bin.js"]
