"""A party across Pis from a phone, in a real browser: the host Pi's appliance (the real server
and the party link ``ducktable run`` carries), a real mosquitto, another table's Pi as its own
``ducktable party join`` process. The phone starts the party, hosts it, and watches the other
table come in and play, live, without reloading the page."""

from __future__ import annotations

from pathlib import Path

import pytest
from ducktable.device.party_service import PartyLinkProducer
from ducktable.device.runloop import Appliance
from ducktable.device.store import MatchStore
from playwright.sync_api import expect

from tests.device.party_helpers import PLAYERS, Ducktable, Mosquitto

from .conftest import ARTIFACTS, PIN, OpenPhone, every_part_problems

pytestmark = pytest.mark.browser

WAIT_MS = 60_000


def test_a_phone_hosts_the_party_and_sees_another_pis_table_live(
        tmp_path: Path, open_phone: OpenPhone) -> None:
    broker = Mosquitto(tmp_path / "broker")
    broker.start()
    data = tmp_path / "host"
    data.mkdir()
    store = MatchStore(data / "matches.sqlite3")
    appliance = Appliance(store, {"INSTANCE_PATH": str(data), "TABLE_PIN": PIN,
                                  "PARTY_FILE": str(data / "party.json")},
                          host="127.0.0.1", port=0, threads=8,
                          producers=[PartyLinkProducer(data)])
    appliance.start()
    other = Ducktable(tmp_path / "table2", "party", "join", "--table", "2", "--broker",
                      broker.address, "--bots", "0.1")
    page = open_phone(device_scale_factor=1, timeout_ms=20_000, axe=True)
    try:
        url = f"http://127.0.0.1:{appliance.server.port}"
        page.goto(f"{url}/party")
        page.click("text=Start a new party")
        form = page.locator('form[action="/party/new"]')
        form.locator('textarea[name="players"]').fill("\n".join(PLAYERS))
        form.locator('input[name="hands"]').fill("2")
        form.locator('input[name="pin"]').fill(PIN)
        form.locator("button").click()
        expect(page.locator("#standings")).to_contain_text("Gus")
        page.click("text=Tables on several Pis")
        page.locator('form[action="/party/link/host"] input[name="broker"]').fill(broker.address)
        page.click("text=Host this party")
        expect(page.locator("#link-role")).to_contain_text("This Pi hosts the party")
        other.start()
        # No reload from here on: the live part comes again every 2 seconds.
        expect(page.locator("#live-1")).to_contain_text("● connected", timeout=WAIT_MS)
        expect(page.locator(".party-moves")).to_contain_text(
            "Table 2's Duckling (still playing) moves from table 2 to table 1")
        expect(page.locator("#live-1")).to_contain_text("finished hand 1", timeout=WAIT_MS)
        duckling = page.locator(".party-moves li >> nth=1 >> strong")
        expect(duckling).to_have_count(1)  # now named: the player who was last out
        expect(page.locator("#standings")).to_contain_text("T2·1")  # the standings came too
        # readable and tappable at arm's length, as every page
        assert every_part_problems(page, "party") == []
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "phone-party.png"), full_page=True)
        page.click("text=Stop hosting")
        expect(page.locator("#across-pis")).to_contain_text("Host this party")
    finally:
        page.context.close()
        other.stop()
        appliance.stop()
        store.close()
        broker.kill()
