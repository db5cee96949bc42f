#!/usr/bin/env bash
# Installs the Debian packages jarvis needs to build, run and test (idempotent; needs root or sudo).
set -euo pipefail
packages=(
  pkg-config libasound2-dev libfftw3-dev libpocketsphinx-dev libsphinxbase-dev pocketsphinx-en-us
  libsndfile1-dev libsamplerate0-dev
)
if [ "${1:-}" = "--test" ]; then
  # Tests and fixture generation: TTS voices, sox, the reference decoder, an X server, xdotool and xev.
  packages+=(pocketsphinx sox flite espeak-ng alsa-utils xvfb xdotool x11-utils)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "Installing: ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
