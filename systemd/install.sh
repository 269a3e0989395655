#!/usr/bin/env bash
# Install ducktable as a systemd service on a Raspberry Pi (Raspberry Pi OS, run as root):
#   sudo systemd/install.sh            install or upgrade, then start the service
#   sudo systemd/install.sh --no-start install only
# What it does: creates the system user "ducktable" (groups gpio, video), a virtual
# environment in $PREFIX (default /opt/ducktable, with system site packages so picamera2
# from apt is visible), installs this checkout into it, installs the unit and, if missing,
# /etc/ducktable/ducktable.toml; then enables and starts ducktable.service.
set -euo pipefail

PREFIX="${PREFIX:-/opt/ducktable}"
UNIT_DIR="${UNIT_DIR:-/etc/systemd/system}"
CONFIG_DIR="${CONFIG_DIR:-/etc/ducktable}"
SERVICE_USER="ducktable"
START=1
for arg in "$@"; do
  case "$arg" in
    --no-start) START=0 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $arg (use --no-start or --help)" >&2; exit 2 ;;
  esac
done

if [ "$(id -u)" != 0 ]; then
  echo "install.sh: run as root, e.g. sudo $0" >&2
  exit 1
fi
SOURCE="$(cd "$(dirname "$0")/.." && pwd)"

if ! id "$SERVICE_USER" >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/ducktable --no-create-home \
          --shell /usr/sbin/nologin "$SERVICE_USER"
fi
for group in gpio video; do
  if getent group "$group" >/dev/null; then
    usermod --append --groups "$group" "$SERVICE_USER"
  fi
done

mkdir -p "$PREFIX"
if [ ! -x "$PREFIX/.venv/bin/python" ]; then
  python3 -m venv --system-site-packages "$PREFIX/.venv"
fi
"$PREFIX/.venv/bin/python" -m pip install --quiet --upgrade pip
# numpy held at apt's version: picamera2's simplejpeg is built against it (systemd/pi_numpy.py)
"$PREFIX/.venv/bin/python" "$SOURCE/systemd/pi_numpy.py" > "$PREFIX/pi-constraints.txt"
"$PREFIX/.venv/bin/python" -m pip install --quiet -c "$PREFIX/pi-constraints.txt" "$SOURCE[pi]"
install -m 0644 "$SOURCE/README.md" "$PREFIX/README.md" 2>/dev/null || true

sed "s|/opt/ducktable|$PREFIX|g" "$SOURCE/systemd/ducktable.service" > "$UNIT_DIR/ducktable.service"
chmod 0644 "$UNIT_DIR/ducktable.service"
# The service writes the settings from the phone's welcome and Settings pages: it owns the
# folder (the file is replaced by a rename there) and the file, which holds the PIN.
install -d -m 0750 -o "$SERVICE_USER" -g "$SERVICE_USER" "$CONFIG_DIR"
if [ ! -e "$CONFIG_DIR/ducktable.toml" ]; then
  install -m 0600 -o "$SERVICE_USER" -g "$SERVICE_USER" "$SOURCE/systemd/ducktable.toml" "$CONFIG_DIR/ducktable.toml"
fi

systemctl daemon-reload
if [ "$START" = 1 ]; then
  systemctl enable --now ducktable.service
  systemctl restart ducktable.service
  echo "ducktable is running. The table PIN and the scoreboard address are in:"
  echo "  journalctl -u ducktable -n 20"
else
  systemctl enable ducktable.service
  echo "installed; start it with: systemctl start ducktable"
fi
