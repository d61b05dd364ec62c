#!/usr/bin/env bash
# Installs what the HTML report's browser check needs (scripts/check-html-report.sh): Debian's
# chromium, and playwright-core from the npm registry (locked in scripts/browser/, no browser
# download: it drives /usr/bin/chromium). Idempotent; run as root, as CI is.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v chromium > /dev/null; then
  apt-get update -q > /dev/null
  # fonts-dejavu-core: a screenshot with readable text on a bare machine.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    chromium fonts-dejavu-core > /dev/null
fi
if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
  apt-get update -q > /dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm > /dev/null
fi
if [ ! -d browser/node_modules/playwright-core ]; then
  (cd browser && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent)
fi
chromium --version
