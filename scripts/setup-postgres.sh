#!/usr/bin/env bash
# Ensure a local Debian PostgreSQL cluster is running, has the pgvector
# (`vector`) and `pg_trgm` extensions available, and that the test database
# exists. Idempotent; a second run only checks state and takes a few seconds.
#
# Env overrides: PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres),
#                TEST_DB_NAME (memory_test).
# Stdout: exactly one line, TEST_DATABASE_URL=postgres://USER@HOST:PORT/DB
# Progress goes to stderr. Needs root for the install steps.
#
# --standby: also a hot standby of the local cluster (streaming replication, `pg_basebackup -R`) in a
#   second data directory on STANDBY_PORT (5433), started with pg_ctl as the cluster's owner. Lets the
#   primary accept local replication connections first (pg_hba.conf lines appended + reload; nothing
#   restarts). Prints a second line, TEST_DATABASE_READ_URL=postgres://USER@HOST:STANDBY_PORT/DB.
#   A running, streaming standby is kept; a stopped one is started (and rebuilt when it cannot catch up).
# --standby-ctl start|stop|status: only that, on the standby made before (tests stop it mid-load).
#   Env: STANDBY_PORT (5433), STANDBY_DIR (/var/lib/postgresql/MAJOR/standby-PORT), WAL_KEEP_MB (4096:
#   the primary's wal_keep_size is raised to it, so a standby stopped under load can catch up).
#
# A local / CI set-up, not a production one: the test cluster already trusts local connections, and
# --standby adds trust lines too, narrowed to what the tests need: replication connections on the
# primary only for PGUSER, over the Unix socket and from 127.0.0.1 / ::1; on the standby (listening on
# 127.0.0.1 only) connections only for PGUSER, the same way. A real replica uses a replication role
# with a password or certificate (docs/operations.md, Scaling).
set -euo pipefail

MODE=primary
STANDBY_ACTION=""
while [ $# -gt 0 ]; do
  case "$1" in
    --standby) MODE=standby ;;
    --standby-ctl) MODE=standby-ctl; STANDBY_ACTION="${2:-}"; shift ;;
    *) echo "setup-postgres: unknown argument $1 (use --standby or --standby-ctl start|stop|status)" >&2; exit 2 ;;
  esac
  shift
done
STANDBY_PORT="${STANDBY_PORT:-5433}"
WAL_KEEP_MB="${WAL_KEEP_MB:-4096}"

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

# --- standby helpers --------------------------------------------------------
pg_bin() { echo "/usr/lib/postgresql/$MAJOR/bin/$1"; }
standby_dir() { echo "${STANDBY_DIR:-/var/lib/postgresql/$MAJOR/standby-$STANDBY_PORT}"; }
# pg_ctl and the server refuse to run as root: run them as the user owning the clusters (postgres).
pg_owner() { echo "${PG_OWNER:-$(stat -c %U "/var/lib/postgresql" 2>/dev/null || echo postgres)}"; }
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$(pg_owner)" -- "$@"; else "$@"; fi
}
standby_running() { as_owner "$(pg_bin pg_ctl)" -D "$(standby_dir)" status >/dev/null 2>&1; }
standby_start() { as_owner "$(pg_bin pg_ctl)" -D "$(standby_dir)" -l "$(standby_dir)/standby.log" -w -t 60 start; }
standby_stop() { if standby_running; then as_owner "$(pg_bin pg_ctl)" -D "$(standby_dir)" -m fast -w stop; fi; }
standby_psql() { psql -X -q -At -h "$PGHOST" -p "$STANDBY_PORT" -d postgres "$@"; }
# Replaying, and connected to the primary's WAL sender.
standby_streaming() {
  [ "$(standby_psql -c "select pg_is_in_recovery() and exists (select 1 from pg_stat_wal_receiver where status = 'streaming')" 2>/dev/null)" = t ]
}
wait_streaming() {
  for _ in $(seq 1 "$1"); do
    standby_streaming && return 0
    sleep 0.5
  done
  return 1
}

major_of_local_cluster() {
  local major
  major="$(pg_lsclusters -h 2>/dev/null | awk -v p="$PGPORT" '$2=="main" && $3==p {print $1; exit}')"
  [ -n "$major" ] || major="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)"
  echo "$major"
}

if [ "$MODE" = standby-ctl ]; then
  [ "$LOCAL" = 1 ] || die "--standby-ctl works on a local cluster only"
  MAJOR="$(major_of_local_cluster)"
  [ -f "$(standby_dir)/PG_VERSION" ] || die "no standby in $(standby_dir); run scripts/setup-postgres.sh --standby first"
  case "$STANDBY_ACTION" in
    start)
      standby_running || quiet standby_start
      wait_streaming 60 || die "the standby started but is not streaming (see $(standby_dir)/standby.log)"
      ;;
    stop) quiet standby_stop ;;
    status) if standby_running; then echo running; else echo stopped; fi ;;
    *) die "--standby-ctl takes start, stop or status" ;;
  esac
  exit 0
fi

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

# --- 4. hot standby (--standby) ---------------------------------------------
make_standby() {
  [ "$LOCAL" = 1 ] || die "--standby needs the primary on this machine (PGHOST=127.0.0.1)"
  local dir hba
  dir="$(standby_dir)"
  [ "$(psql_q -c "show wal_level")" != minimal ] || die "the primary runs with wal_level=minimal; set it to replica (needs a restart) to stream to a standby"
  [ "$(psql_q -c "show max_wal_senders")" -gt 0 ] || die "the primary has max_wal_senders=0; raise it (needs a restart)"

  # Replication connections match only pg_hba lines that name the `replication` database. Appending
  # these (PGUSER only, this machine only) and reloading changes nothing for other connections and
  # restarts nothing.
  hba="$(psql_q -c "show hba_file")"
  if [ "$(psql_q -c "select count(*) from pg_hba_file_rules where 'replication' = any(database) and type = 'host' and address = '127.0.0.1' and error is null")" = 0 ]; then
    log "allowing local replication connections on the primary ($hba, then reload)"
    printf '\n# Added by scripts/setup-postgres.sh --standby: local streaming replication (local/CI only).\nlocal replication %s trust\nhost replication %s 127.0.0.1/32 trust\nhost replication %s ::1/128 trust\n' "$PGUSER" "$PGUSER" "$PGUSER" >>"$hba"
    psql_q -c "select pg_reload_conf()" >/dev/null
    sleep 1
  fi

  # The tests stop the standby mid-load; started again it must find the WAL it missed, or it can never
  # catch up ("requested WAL segment ... has already been removed": the primary recycles segments at
  # each checkpoint, and a busy test run creates a database per file). A replication slot would hold
  # WAL for as long as the slot exists, also for a standby deleted by hand; a bounded keep does not.
  # wal_keep_size takes a reload, not a restart.
  if [ "$(psql_q -c "select setting::bigint from pg_settings where name = 'wal_keep_size'")" -lt "$WAL_KEEP_MB" ]; then
    log "keeping the newest ${WAL_KEEP_MB} MB of WAL on the primary for the standby (wal_keep_size, then reload)"
    psql_q -c "alter system set wal_keep_size = '${WAL_KEEP_MB}MB'" >/dev/null
    psql_q -c "select pg_reload_conf()" >/dev/null
  fi

  if [ -f "$dir/PG_VERSION" ]; then
    if standby_running && standby_streaming; then
      log "standby on port $STANDBY_PORT already streaming"
      return 0
    fi
    if ! standby_running; then
      log "starting the standby on port $STANDBY_PORT"
      standby_start >>"$LOGFILE" 2>&1 || true
    fi
    wait_streaming 30 && return 0
    log "the standby in $dir cannot catch up; rebuilding it"
    standby_stop >>"$LOGFILE" 2>&1 || true
  fi

  log "pg_basebackup into $dir (port $STANDBY_PORT)"
  rm -rf "$dir"
  mkdir -p "$dir"
  chown "$(pg_owner):" "$dir"
  chmod 700 "$dir"
  # -R writes standby.signal and primary_conninfo; -X stream ships the copy's WAL alongside it.
  quiet as_owner "$(pg_bin pg_basebackup)" -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -D "$dir" -R -X stream -c fast
  # Debian keeps the configuration outside the data directory, so the standby gets its own. Settings
  # a standby must hold at least as high as its primary are copied from it.
  local copied="" name
  for name in max_connections max_worker_processes max_wal_senders max_prepared_transactions max_locks_per_transaction; do
    copied+="$name = $(psql_q -c "show $name")"$'\n'
  done
  as_owner tee "$dir/postgresql.conf" >/dev/null <<CONF
# Written by scripts/setup-postgres.sh --standby: a hot standby of $PGHOST:$PGPORT.
port = $STANDBY_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
hot_standby = on
hot_standby_feedback = on
max_standby_streaming_delay = 5s
wal_receiver_status_interval = 1s
hba_file = '$dir/pg_hba.conf'
ident_file = '$dir/pg_ident.conf'
shared_buffers = 128MB
$copied
CONF
  # The tests' user only (the standby takes no replication connections of its own).
  printf 'local all %s trust\nhost all %s 127.0.0.1/32 trust\nhost all %s ::1/128 trust\n' "$PGUSER" "$PGUSER" "$PGUSER" | as_owner tee "$dir/pg_hba.conf" >/dev/null
  as_owner touch "$dir/pg_ident.conf"
  quiet standby_start
  wait_streaming 60 || die "the standby started but does not stream from the primary (see $dir/standby.log)"
  log "standby streaming on port $STANDBY_PORT"
}

echo "TEST_DATABASE_URL=postgres://${PGUSER}@${PGHOST}:${PGPORT}/${TEST_DB_NAME}"
if [ "$MODE" = standby ]; then
  make_standby
  echo "TEST_DATABASE_READ_URL=postgres://${PGUSER}@${PGHOST}:${STANDBY_PORT}/${TEST_DB_NAME}"
fi
