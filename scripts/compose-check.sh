#!/usr/bin/env bash
# The compose stack with docker, as far as this machine allows. Without docker, the compose file, its
# environment and the bootstrap of an empty database are checked by test/production/compose.test.ts
# (part of npm test); this script adds what needs docker, and names each step it could not run:
#   1. docker compose config   the file and its interpolation with .env.example (plus generated secrets)
#   2. docker compose build    the image, on the Node LTS of the Dockerfile
#   3. docker compose up       the whole stack on free ports: /readyz answers, the operator logs in, then down -v
set -uo pipefail
cd "$(dirname "$0")/.."

could_not=()
work="$(mktemp -d)"
project="gwcheck$$"
cleanup() {
  if [ -f "$work/up" ]; then docker compose -p "$project" --env-file "$work/env" -f docker-compose.yml -f "$work/override.yml" down -v >/dev/null 2>&1; fi
  rm -rf "$work"
}
trap cleanup EXIT

secret() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }
api_port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
sed -e "s/^ENCRYPTION_KEY=.*/ENCRYPTION_KEY=$(secret)/" -e "s/^HMAC_SECRET=.*/HMAC_SECRET=$(secret)/" \
    -e "s/^BOOTSTRAP_OPERATOR_PASSWORD=.*/BOOTSTRAP_OPERATOR_PASSWORD=compose-check-password/" \
    -e "s/^GATEWAY_PUBLISH=.*/GATEWAY_PUBLISH=127.0.0.1:${api_port}/" .env.example > "$work/env"
# The machine's own PostgreSQL and Redis may hold 5432 and 6379: publish nothing but the API.
cat > "$work/override.yml" <<'YAML'
services:
  postgres: { ports: !reset [] }
  redis: { ports: !reset [] }
  minio: { ports: !reset [] }
  simulator: { ports: !reset [] }
YAML
compose() { docker compose -p "$project" --env-file "$work/env" -f docker-compose.yml -f "$work/override.yml" "$@"; }

if ! docker compose version >/dev/null 2>&1; then
  could_not+=("docker compose config: docker compose is not installed here")
  could_not+=("docker compose build (the image on the Dockerfile's Node): no docker compose")
  could_not+=("docker compose up (the whole stack): no docker compose")
else
  if compose config -q; then echo "compose: docker compose config: the file and its environment are valid"; else echo "compose: docker compose config FAILED"; exit 1; fi
  if ! docker info >/dev/null 2>&1; then
    could_not+=("docker compose build and up: no docker daemon reachable")
  elif ! compose pull --quiet postgres redis minio >/dev/null 2>&1; then
    could_not+=("docker compose pull (postgres, redis, minio images): the registry is not reachable")
    could_not+=("docker compose build and up: they need those images")
  elif ! compose build --quiet >/dev/null 2>&1; then
    echo "compose: docker compose build FAILED"; exit 1
  else
    touch "$work/up"
    compose up -d --quiet-pull >/dev/null 2>&1 || { echo "compose: docker compose up FAILED"; compose logs --tail 50; exit 1; }
    ready=""
    for _ in $(seq 1 90); do
      if curl -fs "http://127.0.0.1:${api_port}/readyz" >/dev/null 2>&1; then ready=yes; break; fi
      sleep 2
    done
    [ -n "$ready" ] || { echo "compose: the API did not become ready"; compose logs --tail 50; exit 1; }
    status="$(curl -s -o /dev/null -w '%{http_code}' -H 'content-type: application/json' \
      -d '{"email":"operator@gateway.local","password":"compose-check-password"}' "http://127.0.0.1:${api_port}/api/v1/auth/login")"
    [ "$status" = 200 ] || { echo "compose: the bootstrap's operator login was refused (HTTP $status)"; exit 1; }
    echo "compose: docker compose up: the stack is ready and the bootstrap's operator logs in"
  fi
fi

echo "compose: without docker, test/production/compose.test.ts validated the file, its environment and the bootstrap of an empty database"
if [ "${#could_not[@]}" -gt 0 ]; then
  echo "compose: steps this machine could not run:"
  printf '  - %s\n' "${could_not[@]}"
fi
