"""A table's scoreboard announced on the LAN by mDNS (python-zeroconf): ``ducktable.local``.

Why this module exists: phones at the table should open an address that is easy to say and
type, the same on every table, that survives the router handing the Pi another IP. ``ducktable
run`` answers as ``ducktable.local`` and announces its scoreboard as an ``_http._tcp`` service.
A second table on the same network cannot hold that name too: before announcing, the name is
asked for, and when another machine answers it the table takes ``ducktable-2.local`` (then -3,
...), the way mDNS hosts settle a clash. The party host (device/party_mdns.py) answers as
``ducktable.local`` as well; on the same Pi that is the same address, so no clash.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence

from .party_link import LinkError
from .party_mdns import HOST_NAME, _zeroconf
from .runloop import http_url

SERVICE_TYPE = "_http._tcp.local."
INSTANCE = "ducktable scoreboard"
ASK_MS = 1500
"""How long to wait for another machine to answer a name before taking it (mDNS probes for
about 750 ms; a busy Wi-Fi answers later)."""
MAX_TRIES = 20


def host_names() -> list[str]:
    """The names tried in turn: ducktable.local, ducktable-2.local, ..."""
    base = HOST_NAME.removesuffix(".local.")
    return [HOST_NAME] + [f"{base}-{n}.local." for n in range(2, MAX_TRIES + 1)]


class TableAnnouncer:
    """This table's scoreboard on the LAN: the first free name of :func:`host_names` answers
    with ``addresses``, and an ``_http._tcp`` service points at ``web_port``."""

    def __init__(self, web_port: int, addresses: Sequence[str], *,
                 interfaces: Sequence[str] | None = None, ask_ms: int = ASK_MS) -> None:
        from zeroconf import ServiceInfo

        self.zeroconf = _zeroconf(interfaces)
        try:
            self.host = self._free_name(set(addresses), ask_ms)
            self.info = ServiceInfo(
                SERVICE_TYPE, f"{INSTANCE}.{SERVICE_TYPE}",
                addresses=[socket.inet_aton(a) for a in addresses], port=web_port,
                properties={"path": "/"}, server=self.host)
            self.zeroconf.register_service(self.info, allow_name_change=True)
        except BaseException:
            self.zeroconf.close()
            raise
        self.url = http_url(self.host.removesuffix("."), web_port)

    def _free_name(self, mine: set[str], ask_ms: int) -> str:
        from zeroconf import AddressResolverIPv4

        for name in host_names():
            resolver = AddressResolverIPv4(name)
            if not resolver.request(self.zeroconf, ask_ms):
                return name  # nobody answers: free
            if set(resolver.parsed_addresses()) <= mine:
                return name  # this machine already answers it (the party host beside us)
        raise OSError(f"{MAX_TRIES} ducktable names are taken on this network")

    def close(self) -> None:
        self.zeroconf.unregister_service(self.info)
        self.zeroconf.close()


def announce(web_port: int, address: str) -> TableAnnouncer | None:
    """Announce the scoreboard served at ``address`` (loopback: heard on this machine only),
    or None with a warning when the network has no multicast or zeroconf is missing."""
    import logging

    log = logging.getLogger("ducktable")
    loopback = address.startswith("127.")
    try:
        return TableAnnouncer(web_port, [address],
                              interfaces=["127.0.0.1"] if loopback else None)
    except (OSError, ImportError, ValueError, LinkError) as exc:
        log.warning("cannot announce the scoreboard as ducktable.local (%s); phones use the "
                    "address printed below", exc)
        return None
