"""Files the media interop scripts send: a PNG made here (no image library needed), and the size of a JPEG the
server made, read from its start-of-frame segment."""
import struct
import zlib


def png(width, height, tint=128):
    """A gradient PNG: red across, green down."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        green = y * 255 // (height - 1)
        for x in range(width):
            rows += bytes((x * 255 // (width - 1), green, tint))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b"")


def jpeg_size(data):
    """A JPEG's width and height, from its start-of-frame segment."""
    assert data[:2] == b"\xff\xd8", data[:4]
    index = 2
    while index + 9 < len(data):
        marker, length = data[index + 1], int.from_bytes(data[index + 2:index + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            return int.from_bytes(data[index + 7:index + 9], "big"), int.from_bytes(data[index + 5:index + 7], "big")
        index += 2 + length
    raise AssertionError("no start of frame")
