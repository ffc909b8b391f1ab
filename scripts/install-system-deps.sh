#!/bin/sh
# Installs the Debian packages the grading service needs on the host (idempotent: apt-get runs
# only when something is missing). Must run as root (CI machines and the Dockerfile do).
#   bubblewrap  - namespaces + minimal filesystem for the code sandbox (grader/sandbox/launcher.py)
#   util-linux  - setpriv (drops the sandbox to its unprivileged per-slot uid)
#   libseccomp2 - compiles the sandbox's seccomp filter (through pyseccomp)
#   wordnet-base - WordNet 3.0 database files (/usr/share/wordnet) for the rubric trial's
#                  suggestions (grader/rubric/suggest.py, read offline with nltk)
#   chromium, chromium-driver, fonts-dejavu-core - the headless browser tests of the learner page
#                 (tests/web/; Selenium drives /usr/bin/chromium through /usr/bin/chromedriver)
#   curl, jq    - the README's examples, which tests/test_readme.py runs against a live server
#   nginx       - the production reverse proxy's config (deploy/nginx/) is started in front of a
#                 real gunicorn by tests/deploy/test_nginx_proxy.py (docker-compose.yml runs the
#                 official nginx image instead); its service is not started by the install
set -eu

packages="bubblewrap util-linux libseccomp2 wordnet-base chromium chromium-driver fonts-dejavu-core curl jq nginx"
missing=""
for package in $packages; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done

if [ -n "$missing" ]; then
    echo "installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # Debian starts a service (nginx on port 80) when it installs one, unless policy-rc.d says
    # no; on a machine without that policy, refuse for the length of the install
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy"
    fi
    # shellcheck disable=SC2086 - word splitting of the package list is intended
    apt-get install -y -qq --no-install-recommends $missing || { [ -z "$policy" ] || rm -f "$policy"; exit 1; }
    [ -z "$policy" ] || rm -f "$policy"
else
    echo "system dependencies already installed: $packages"
fi

for tool in bwrap setpriv; do
    command -v "$tool" >/dev/null 2>&1 || { echo "error: $tool missing after install" >&2; exit 1; }
done
