"""Finding the party host on the LAN with mDNS (python-zeroconf).

Why this module exists: nobody at a party wants to type an IP address. The host Pi advertises a
``_ducktable._tcp`` service whose port is the party's MQTT broker and answers as
``ducktable.local`` (so phones can also open http://ducktable.local:8000/); ``ducktable party
join`` without ``--broker`` browses for that service and connects to the first host it finds.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Sequence
from typing import Any

from .party_link import LinkError

SERVICE_TYPE = "_ducktable._tcp.local."
HOST_NAME = "ducktable.local."
INSTANCE = "ducktable party"
DISCOVER_S = 5.0


def _zeroconf(interfaces: Sequence[str] | None) -> Any:
    try:
        from zeroconf import InterfaceChoice, IPVersion, Zeroconf
    except ImportError:
        raise LinkError("finding the party host needs zeroconf: .venv/bin/pip install zeroconf "
                        "(or give --broker HOST:PORT)") from None
    chosen: Any = list(interfaces) if interfaces else InterfaceChoice.All
    return Zeroconf(interfaces=chosen, ip_version=IPVersion.V4Only)


class Advertiser:
    """The host's mDNS answer: the ``_ducktable._tcp`` service and the name ducktable.local."""

    def __init__(self, broker_port: int, addresses: Sequence[str], *, web_port: int | None = None,
                 party_id: str = "", interfaces: Sequence[str] | None = None) -> None:
        from zeroconf import ServiceInfo

        self.zeroconf = _zeroconf(interfaces)
        properties = {"broker_port": str(broker_port), "party": party_id}
        if web_port is not None:
            properties["web_port"] = str(web_port)
        self.info = ServiceInfo(
            SERVICE_TYPE, f"{INSTANCE}.{SERVICE_TYPE}",
            addresses=[socket.inet_aton(a) for a in addresses], port=broker_port,
            properties=properties, server=HOST_NAME)
        self.zeroconf.register_service(self.info, allow_name_change=True)

    @property
    def name(self) -> str:
        return str(self.info.name)

    def close(self) -> None:
        self.zeroconf.unregister_service(self.info)
        self.zeroconf.close()


def discover(timeout_s: float = DISCOVER_S, interfaces: Sequence[str] | None = None,
             party_id: str | None = None) -> tuple[str, int]:
    """The (address, port) of the first party host heard on the LAN (of party ``party_id``,
    when given: two parties in one café); LinkError if none answers within ``timeout_s``."""
    from zeroconf import ServiceBrowser, ServiceStateChange

    zc = _zeroconf(interfaces)
    found: list[str] = []
    heard = threading.Event()

    def changed(zeroconf: Any, service_type: str, name: str,
                state_change: ServiceStateChange) -> None:
        if state_change is ServiceStateChange.Added:
            found.append(name)
            heard.set()

    deadline = time.monotonic() + timeout_s
    checked: set[str] = set()
    try:
        browser = ServiceBrowser(zc, SERVICE_TYPE, handlers=[changed])
        try:
            while (left := deadline - time.monotonic()) > 0:
                heard.wait(left)
                heard.clear()
                for name in [n for n in found if n not in checked]:
                    checked.add(name)
                    info = zc.get_service_info(SERVICE_TYPE, name,
                                               timeout=int(max(left, 0.5) * 1000))
                    if info is None or not info.parsed_addresses():
                        continue
                    announced = (info.properties or {}).get(b"party") or b""
                    if party_id and announced.decode("utf-8", "replace") != party_id:
                        continue
                    return info.parsed_addresses()[0], int(info.port or 0)
        finally:
            browser.cancel()
    finally:
        zc.close()
    which = f"of party {party_id} " if party_id else ""
    raise LinkError(f"no party host {which}answered on this network within {timeout_s:g} s; "
                    "start `ducktable party host` on the host Pi, or give --broker HOST:PORT")
