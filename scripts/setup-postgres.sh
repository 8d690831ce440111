#!/usr/bin/env bash
# Ensure a local Debian PostgreSQL cluster is running, has the pgvector
# (`vector`) and `pg_trgm` extensions available, and that the test database
# exists. Idempotent; a second run only checks state and takes a few seconds.
#
# Env overrides: PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres),
#                TEST_DB_NAME (memory_test).
# Stdout: exactly one line, TEST_DATABASE_URL=postgres://USER@HOST:PORT/DB
# Progress goes to stderr. Needs root for the install steps.
set -euo pipefail

PGHOST="${PGHOST:-127.0.0.1}"
PGPORT="${PGPORT:-5432}"
PGUSER="${PGUSER:-postgres}"
TEST_DB_NAME="${TEST_DB_NAME:-memory_test}"
export PGHOST PGPORT PGUSER
export DEBIAN_FRONTEND=noninteractive

log() { echo "setup-postgres: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

WORKDIR="$(mktemp -d "${TMPDIR:-/tmp}/setup-postgres.XXXXXX")"
LOGFILE="$WORKDIR/log"
trap 'rm -rf "$WORKDIR"' EXIT

# Run a command with its output captured; show the tail only on failure.
quiet() {
  if ! "$@" >>"$LOGFILE" 2>&1; then
    log "command failed: $*"
    tail -n 40 "$LOGFILE" >&2
    exit 1
  fi
}

psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 -d postgres "$@"; }

case "$PGHOST" in
  127.0.0.1 | localhost | ::1 | /*) LOCAL=1 ;;
  *) LOCAL=0 ;;
esac

# --- 1. local cluster -------------------------------------------------------
MAJOR=""
if [ "$LOCAL" = 1 ]; then
  command -v pg_lsclusters >/dev/null || die "pg_lsclusters not found (postgresql-common not installed?)"
  # Prefer the cluster listening on $PGPORT, else the newest installed major.
  MAJOR="$(pg_lsclusters -h 2>/dev/null | awk -v p="$PGPORT" '$2=="main" && $3==p {print $1; exit}')"
  if [ -z "$MAJOR" ]; then
    MAJOR="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)"
  fi
  [ -n "$MAJOR" ] || die "no PostgreSQL cluster found in /etc/postgresql"

  status="$(pg_lsclusters -h 2>/dev/null | awk -v m="$MAJOR" '$1==m && $2=="main" {print $4}')"
  if [ "$status" != "online" ]; then
    log "starting PostgreSQL $MAJOR/main"
    quiet pg_ctlcluster --skip-systemctl-redirect "$MAJOR" main start
  fi
fi

for _ in $(seq 1 60); do
  pg_isready -q -h "$PGHOST" -p "$PGPORT" && break
  sleep 0.5
done
pg_isready -q -h "$PGHOST" -p "$PGPORT" || die "PostgreSQL not ready at $PGHOST:$PGPORT"

ext_available() {
  [ "$(psql_q -c "select count(*) from pg_available_extensions where name = '$1'")" = 1 ]
}

# --- 2. extensions ----------------------------------------------------------
APT_UPDATED=0
apt_update_once() {
  if [ "$APT_UPDATED" = 0 ]; then
    log "apt-get update"
    quiet apt-get update -q
    APT_UPDATED=1
  fi
}

apt_has_candidate() {
  local cand
  cand="$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}')"
  [ -n "$cand" ] && [ "$cand" != "(none)" ]
}

# Debian mirror URI already configured for the base suite (deb822 or one-line).
debian_mirror() {
  local uri=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    # deb822: first stanza with Types: deb whose suites are not *-security.
    uri="$(awk 'BEGIN { RS = ""; FS = "\n" }
      {
        t = ""; u = ""; s = ""
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^Types:/) t = $i
          else if ($i ~ /^URIs:/) { split($i, a, /[[:space:]]+/); u = a[2] }
          else if ($i ~ /^Suites:/) s = $i
        }
        if (t ~ /[[:space:]]deb([[:space:]]|$)/ && u != "" && s !~ /security/) { print u; exit }
      }' /etc/apt/sources.list.d/debian.sources)"
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri="$(awk '$1=="deb" && $0 !~ /security/ { for (i=2;i<=NF;i++) if ($i ~ /^https?:/) { print $i; exit } }' /etc/apt/sources.list)"
  fi
  echo "${uri:-}"
}

build_pgvector_from_source() {
  local mirror src_file=/etc/apt/sources.list.d/trixie-src.sources
  mirror="$(debian_mirror)"
  [ -n "$mirror" ] || die "could not determine the Debian mirror from apt sources"
  if [ ! -f "$src_file" ]; then
    log "adding trixie deb-src entry ($mirror)"
    cat >"$src_file" <<EOF
# Added by scripts/setup-postgres.sh: source packages only (pgvector build).
Types: deb-src
URIs: $mirror
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  fi
  # Refresh just this source.
  log "fetching trixie source index"
  quiet apt-get update -q \
    -o Dir::Etc::sourcelist="$src_file" -o Dir::Etc::sourceparts=- \
    -o APT::Get::List-Cleanup=0

  log "installing build dependencies (postgresql-server-dev-$MAJOR, build-essential)"
  apt_update_once
  quiet apt-get install -y -q --no-install-recommends \
    "postgresql-server-dev-$MAJOR" build-essential dpkg-dev

  log "downloading and building pgvector source"
  (cd "$WORKDIR" && quiet apt-get source -q pgvector/trixie)
  local dir
  dir="$(find "$WORKDIR" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)"
  [ -n "$dir" ] || die "pgvector source not unpacked"
  local pgc="/usr/lib/postgresql/$MAJOR/bin/pg_config"
  # OPTFLAGS="" avoids -march=native; with_llvm=no skips JIT bitcode.
  quiet make -C "$dir" -j"$(nproc)" PG_CONFIG="$pgc" OPTFLAGS="" with_llvm=no
  quiet make -C "$dir" install PG_CONFIG="$pgc" OPTFLAGS="" with_llvm=no
}

if ext_available vector; then
  :
else
  [ "$LOCAL" = 1 ] || die "extension 'vector' not available on remote server $PGHOST"
  pkg="postgresql-$MAJOR-pgvector"
  apt_has_candidate "$pkg" || apt_update_once
  if apt_has_candidate "$pkg"; then
    log "installing $pkg"
    quiet apt-get install -y -q --no-install-recommends "$pkg"
  else
    log "$pkg not packaged for this release; building from Debian (trixie) source"
    build_pgvector_from_source
  fi
  ext_available vector || die "extension 'vector' still not available after install"
  log "pgvector installed"
fi

if ! ext_available pg_trgm; then
  [ "$LOCAL" = 1 ] || die "extension 'pg_trgm' not available on remote server $PGHOST"
  log "installing postgresql-contrib"
  apt_update_once
  if apt_has_candidate "postgresql-contrib-$MAJOR"; then
    quiet apt-get install -y -q --no-install-recommends "postgresql-contrib-$MAJOR"
  else
    quiet apt-get install -y -q --no-install-recommends postgresql-contrib
  fi
  ext_available pg_trgm || die "extension 'pg_trgm' still not available after install"
fi

# --- 3. test database -------------------------------------------------------
exists="$(printf "select 1 from pg_database where datname = :'db';\n" | psql_q -v db="$TEST_DB_NAME")"
if [ "$exists" != 1 ]; then
  log "creating database $TEST_DB_NAME"
  quiet createdb -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" "$TEST_DB_NAME"
fi

echo "TEST_DATABASE_URL=postgres://${PGUSER}@${PGHOST}:${PGPORT}/${TEST_DB_NAME}"
