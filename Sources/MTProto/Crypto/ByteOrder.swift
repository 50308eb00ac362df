import TL

/// The 64-bit little-endian value of exactly 8 bytes (TL byte order): auth_key_id and fingerprints from SHA-1 slices,
/// retry_id from aux_hash, salts. Reads through `TLReader`, the project's reader for TL integers.
func littleEndianInt64<Bytes: Collection>(_ bytes: Bytes) -> Int64 where Bytes.Element == UInt8 {
    var reader = TLReader(Array(bytes.prefix(8)))
    return (try? reader.readInt64()) ?? 0
}
