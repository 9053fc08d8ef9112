"""Tests of the gj2k Python module: round trips, decode options, info, errors, GIL release."""
import threading
import time

import numpy as np
import pytest

import gj2k


def pattern(h, w, c=None, dtype=np.uint8, bits=8):
    y, x = np.mgrid[0:h, 0:w]
    shape = (h, w) if c is None else (h, w, c)
    out = np.zeros(shape, dtype=np.int64)
    for k in range(1 if c is None else c):
        v = (x * 7 + y * 13 + k * 101 + (x * y) % 31) % (1 << bits)
        if c is None:
            out[:] = v
        else:
            out[..., k] = v
    if np.issubdtype(dtype, np.signedinteger):
        out -= 1 << (bits - 1)
    return out.astype(dtype)


def test_version():
    assert gj2k.__version__.count(".") == 2


@pytest.mark.parametrize("dtype,bits", [(np.uint8, 8), (np.uint16, 12), (np.int8, 8),
                                        (np.int16, 16)])
def test_lossless_round_trip(dtype, bits):
    a = pattern(33, 47, 3, dtype, bits)
    data = gj2k.encode(a, precision=bits)
    assert isinstance(data, bytes) and data[:2] == b"\xff\x4f"
    b = gj2k.decode(data)
    assert b.dtype == dtype
    assert b.shape == a.shape
    np.testing.assert_array_equal(a, b)


def test_views_and_byte_orders_encode_as_their_copies():
    a = pattern(40, 50, 3)
    every_other_row = a[::2]  # read in place: rows twice as far apart
    assert gj2k.encode(every_other_row) == gj2k.encode(every_other_row.copy())
    columns_reversed = a[:, ::-1]  # copied into C order first
    assert gj2k.encode(columns_reversed) == gj2k.encode(np.ascontiguousarray(columns_reversed))
    grey = pattern(40, 50)
    assert gj2k.encode(grey[..., None]) == gj2k.encode(grey)  # a new axis: stride 0
    assert gj2k.encode(grey[7][None]) == gj2k.encode(grey[7:8].copy())
    column = np.broadcast_to(grey[:, :1], (40, 1))
    assert gj2k.encode(column) == gj2k.encode(grey[:, :1].copy())
    b = pattern(21, 30, None, np.uint16, 12)
    big = b.astype(">u2")
    assert gj2k.encode(big, precision=12) == gj2k.encode(b, precision=12)
    np.testing.assert_array_equal(gj2k.decode(gj2k.encode(big, precision=12)), b)
    assert big.max() > 255
    with pytest.raises(gj2k.Error, match="outside the range"):
        gj2k.encode(big, precision=8)


def test_grey_and_file_and_info(tmp_path):
    a = pattern(40, 50)
    path = tmp_path / "grey.jp2"
    assert gj2k.encode(a, path, levels=3, tile=(32, 32), order="RPCL", layers=2) is None
    info = gj2k.info(path)
    assert info["jp2"] is True
    assert (info["width"], info["height"]) == (50, 40)
    assert info["levels"] == 3 and info["layers"] == 2
    assert info["tiles"] == (2, 2) and info["tile_size"] == (32, 32)
    assert info["progression"] == "RPCL"
    assert info["color_space"] == "grey"
    assert info["components"][0]["precision"] == 8
    assert info["icc_profile"] == b""
    np.testing.assert_array_equal(gj2k.decode(str(path)), a)
    np.testing.assert_array_equal(gj2k.decode(path.read_bytes()), a)
    np.testing.assert_array_equal(gj2k.decode(memoryview(path.read_bytes())), a)


def test_decode_options():
    a = pattern(64, 80, 3)
    data = gj2k.encode(a, tile=(32, 32), levels=2)
    assert gj2k.decode(data, reduce=1).shape == (32, 40, 3)
    r = gj2k.decode(data, region=(10, 5, 50, 30))
    np.testing.assert_array_equal(r, a[5:30, 10:50])
    t = gj2k.decode(data, tile=4)  # 3 tiles a row: second row, second column
    np.testing.assert_array_equal(t, a[32:64, 32:64])
    c = gj2k.decode(data, components=[2])
    np.testing.assert_array_equal(c, a[..., 2])
    two = gj2k.decode(data, components=[1, 0])
    np.testing.assert_array_equal(two, a[..., [1, 0]])


def test_colour_decode_equals_its_components_decoded_alone():
    # The whole decode packs the colour stage's rows into the array (the finest DWT level in
    # bands); a one-component decode goes through the whole planes: the same samples.
    a = pattern(150, 2100, 3)
    for lossless in (True, False):
        kw = {} if lossless else {"rate": 12}
        data = gj2k.encode(a, lossless=lossless, **kw)
        whole = gj2k.decode(data, threads=2)
        for k in range(3):
            np.testing.assert_array_equal(whole[..., k], gj2k.decode(data, components=[k]))


def test_release_resources():
    a = pattern(64, 80, 3)
    data = gj2k.encode(a, tile=(32, 32), levels=2)  # its tiles' coefficients are kept
    np.testing.assert_array_equal(gj2k.decode(data), a)  # and the tiles' planes
    assert gj2k.release_resources() >= 1
    assert gj2k.release_resources() == 0


def test_lossy_rate_and_layers():
    a = pattern(96, 96, 3)
    lossless = gj2k.encode(a)
    lossy = gj2k.encode(a, lossless=False, rate=8)
    assert len(lossy) <= a.size // 8 + 1
    assert len(lossy) < len(lossless)
    b = gj2k.decode(lossy)
    err = np.abs(b.astype(int) - a.astype(int)).mean()
    assert 0 < err < 20
    layered = gj2k.encode(a, rate=[40, 10, 1])
    assert gj2k.info(layered)["layers"] == 3
    first = gj2k.decode(layered, layers=1)
    assert not np.array_equal(first, a)
    np.testing.assert_array_equal(gj2k.decode(layered), a)
    assert gj2k.encode(a, format="jp2")[4:8] == b"jP  "


def test_errors_have_codes():
    with pytest.raises(gj2k.Error) as e:
        gj2k.decode(b"not a JPEG 2000 file")
    assert e.value.code == "format"
    assert str(e.value)
    with pytest.raises(gj2k.Error) as e:
        gj2k.decode("/nonexistent/x.j2k")
    assert e.value.code == "io"
    data = gj2k.encode(pattern(16, 16))
    with pytest.raises(gj2k.Error) as e:
        gj2k.decode(data, tile=5)
    assert e.value.code == "invalid_argument"
    with pytest.raises(gj2k.Error) as e:
        gj2k.encode(pattern(16, 16), cblk=(3, 64))
    assert "cblk" in str(e.value)
    with pytest.raises(ValueError):
        gj2k.encode(np.zeros((4, 4), np.float32))
    with pytest.raises(ValueError):
        gj2k.decode(data, device="tpu")
    assert isinstance(gj2k.Error("x"), RuntimeError)


def test_gil_released_while_coding():
    # While one thread encodes a large image, another thread keeps running Python code.
    a = pattern(512, 512, 3)
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    start = time.perf_counter()
    data = gj2k.encode(a, threads=1)
    gj2k.decode(data, threads=1)
    end = time.perf_counter()
    done.set()
    t.join()
    during = [x for x in ticks if start < x < end]
    # With the GIL held the ticker could not run at all during the coding.
    assert len(during) >= 5, (len(during), end - start)
