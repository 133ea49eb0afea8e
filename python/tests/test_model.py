"""Decoding results the daemon may send in shapes the live tests do not produce here."""

from __future__ import annotations

import pytest

import accessoryd
from accessoryd import DaemonStatus, Frame
from accessoryd.errors import error_from_response


def test_daemon_status_without_the_figures_withheld_from_unprivileged_users() -> None:
    status = DaemonStatus.from_json({"version": "0.1.0", "accessories": 1, "accessories_ready": 1, "requests_in_flight": 0})
    assert (status.pid, status.uptime_s, status.clients) == (None, None, None)
    assert status.accessories == 1


def test_frame_decoding_trusts_data_base64_and_refuses_bad_base64() -> None:
    assert Frame.from_json({"data_base64": "/w==", "data": "ignored"}) == Frame(b"\xff")
    with pytest.raises(accessoryd.ProtocolError):
        Frame.from_json({"data_base64": "not base64!"})


def test_error_codes_map_to_their_exceptions_and_unknown_codes_are_kept() -> None:
    removed = error_from_response({"code": 1005, "message": "gone", "data": {"device": "x"}})
    assert isinstance(removed, accessoryd.DeviceRemoved) and removed.data == {"device": "x"}
    limit = error_from_response({"code": 1007, "message": "full", "data": {"limit": "queue_depth", "value": 64}})
    assert isinstance(limit, accessoryd.QueueFull) and limit.data["limit"] == "queue_depth"
    future = error_from_response({"code": 1099, "message": "a newer daemon's error"})
    assert type(future) is accessoryd.AccessorydError and future.code == 1099 and str(future) == "a newer daemon's error"
    assert isinstance(error_from_response("nonsense"), accessoryd.ProtocolError)
