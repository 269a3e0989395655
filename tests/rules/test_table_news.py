"""What the table shows before its event is recorded (``TableFollower.news``), on DUCK tables."""

from __future__ import annotations

from ducktable.rules import Event
from ducktable.rules.infer_duck import DEAL_READS
from ducktable.rules.snapshot import middle_zone, seat_zone

from .test_infer_duck import Table, dealt


def test_a_play_laid_out_is_news_until_it_is_recorded() -> None:
    table = dealt()
    assert table.follower.news() == ()  # the start card belongs to the deal, recorded already
    table.lay(s1_reveal=["blue-3", "red-3", "yellow-3"])
    assert table.follower.news() == ((seat_zone(1, "reveal"), ("blue-3", "red-3", "yellow-3")),)
    applied = table.lay(s1_reveal=[], s1_discard=["red-3"])
    assert [e.type for e in applied] == ["play"]
    assert table.follower.news() == ()


def test_cards_under_a_hand_are_not_news_until_read_again() -> None:
    table = dealt()
    table.lay(s1_reveal=["blue-3"])
    table.glimpse({"s1_reveal": None})
    assert table.follower.news() == ()
    table.lay_zones({}, frames=2, hand=False)
    assert table.follower.news() == ()  # not yet read again as often as a change needs
    table.lay_zones({}, frames=3, hand=False)
    assert table.follower.news() == ((seat_zone(1, "reveal"), ("blue-3",)),)


def test_only_the_cards_added_to_a_zone_are_news() -> None:
    table = dealt()
    table.lay(s1_reveal=["blue-3"])
    table.follower.manual(Event("play", 1, {"cards": ["blue-3"]}))  # recorded by hand, still in view
    table.lay_zones({}, frames=2, hand=False)
    table.lay(s1_reveal=["blue-3", "blue-3"])
    assert table.follower.news() == ((seat_zone(1, "reveal"), ("blue-3",)),)


def test_an_unsure_card_is_not_news() -> None:
    table = dealt()
    table.confidence = 0.6
    table.lay(s1_reveal=["blue-3"])
    assert table.follower.news() == ()


def test_a_fresh_table_has_no_news_before_anything_is_read() -> None:
    assert Table().follower.news() == ()


def test_a_play_laid_out_stays_news_when_the_draw_before_it_is_recorded() -> None:
    """DUCK records a draw from the deck when the next player lays out their play (DUCK-A4):
    that play's cards are not the draw's, so they stay on the phones until their own play."""
    table = dealt()
    table.lay(s1_reveal=[], s1_discard=["red-3"])  # Ben plays red-3 onto his pile
    assert [e.type for e in table.follower.state.history] == ["deal", "play"]
    table.lay(s2_reveal=["blue-4", "blue-4"])  # Cat lays out: Ben drew from the deck
    assert [e.type for e in table.follower.state.history][-1] == "draw"
    assert table.follower.news() == ((seat_zone(2, "reveal"), ("blue-4", "blue-4")),)
    table.lay(s2_reveal=[], s2_discard=["blue-4"])
    assert table.follower.state.history[-1].type == "play" and table.follower.news() == ()


def test_a_card_no_event_names_leaves_the_news_at_the_next_event() -> None:
    """DUCK's lifebelt lies out before the deal and no event names it: it stays news across
    the deal (news not named by an event wait one more event), then leaves the phones."""
    table = Table()
    table.zones[middle_zone("lifebelt")] = ["lifebelt-6-green"]
    table.lay(s0_discard=["red-5"], frames=DEAL_READS)
    assert [e.type for e in table.follower.state.history] == ["deal"]
    assert table.follower.news() == ((middle_zone("lifebelt"), ("lifebelt-6-green",)),)
    table.lay(s1_reveal=[], s1_discard=["red-3"])
    assert [e.type for e in table.follower.state.history] == ["deal", "play"]
    assert table.follower.news() == ()
