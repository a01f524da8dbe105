# authsvc in a container (docs/operations/containers-and-systemd.md).
#   docker build -t authsvc .
#   docker run -d -p 127.0.0.1:13431:13431 -v authsvc-data:/data \
#     -e AUTHSVC_AUTHDB=postgresql://authsvc:…@db:5432/authsvc \
#     -e AUTHSVC_SECRET=/run/secrets/authsvc_secret -e AUTHSVC_PIISALT=/run/secrets/authsvc_piisalt authsvc
# Every item is an AUTHSVC_* variable (npx authsvc --help lists them); options go after the image name.

# Stage 1: compile TypeScript and the native modules (argon2, better-sqlite3) with the full toolchain.
FROM node:20-bookworm-slim AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json binding.gyp ./
COPY native ./native
COPY src ./src
COPY policy ./policy
COPY policy-schema ./policy-schema
# `npm ci` builds native/malloc_trim.c (binding.gyp) and runs the prepare script, which builds dist/;
# then the dev dependencies go.
RUN npm ci && npm prune --omit=dev

# Stage 2: only what runs. The package layout is kept (dist/ beside src/config/confvars.json, policy/),
# as authsvc finds its shipped files relative to its own folder.
FROM node:20-bookworm-slim
# GLIBC_TUNABLES: glibc's settings under which password hashes' memory goes back once hashing stops
# (docs/operations.md, "Memory").
ENV NODE_ENV=production \
  GLIBC_TUNABLES=glibc.malloc.arena_max=1:glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864 \
  AUTHSVC_BASEDIR=/data \
  AUTHSVC_LISTEN=0.0.0.0 \
  AUTHSVC_PORT=13431 \
  AUTHSVC_WORKERS=1
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/build/Release/malloc_trim.node ./build/Release/malloc_trim.node
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
# The node flag and entry of the `authsvc` command (src/bin.cts; docs/operations.md, "Memory").
ENTRYPOINT ["node", "--max-semi-space-size=4", "dist/bin.cjs"]
