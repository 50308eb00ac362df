import MTProto

/// The server's RSA key and every auth key its data centers made, written once for both backends: in the database,
/// so that any process serving a data center completes a client's key exchange with the key the client knows and
/// finds the auth key another process made (a client reconnects to whichever process a load balancer picks).
enum KeySQL {
    enum RSAKey: SQLText { static let text = "SELECT modulus, exponent, private_exponent FROM rsa_keys WHERE id = 1" }
    /// The first process to store a key wins; the others read it back (`ServerKeys.open`).
    enum InsertRSAKey: SQLText {
        static let text = "INSERT INTO rsa_keys (id, modulus, exponent, private_exponent) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING"
    }
    enum AuthKey: SQLText {
        static let text = "SELECT key, salt, CAST(expires_in AS BIGINT), CAST(created_at AS BIGINT) FROM auth_keys WHERE dc = ? AND id = ?"
    }
    /// A key id is the SHA-1 tail of 256 random bytes: a second insert of one id is the same key stored again (an
    /// import run twice), never another key.
    enum InsertAuthKey: SQLText {
        static let text = """
            INSERT INTO auth_keys (dc, id, key, salt, expires_in, created_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (dc, id) DO NOTHING
            """
    }
    enum AuthKeyCount: SQLText { static let text = "SELECT COUNT(*) FROM auth_keys WHERE dc = ?" }
}

public protocol KeyStorageReader {
    /// The server's RSA key, once one was stored.
    func rsaKey() throws -> RSAPrivateKey?
    /// The auth key `id` of data center `dc`.
    func authKey(dc: Int32, id: UInt64) throws -> StoredAuthKey?
    func authKeyCount(dc: Int32) throws -> Int
}

public protocol KeyStorageWriter {
    /// Stores `key` unless a key is stored already (several processes may start at once; `rsaKey()` reads the winner).
    func insertRSAKeyIfAbsent(_ key: RSAPrivateKey) throws
    func insert(_ key: StoredAuthKey, dc: Int32) throws
}

extension SQLStatements {
    func rsaKey() throws -> RSAPrivateKey? {
        try row(KeySQL.RSAKey.self) { cells in
            RSAPrivateKey(modulus: try cells.bytes(at: 0), publicExponent: try cells.bytes(at: 1), privateExponent: try cells.bytes(at: 2))
        }
    }

    func authKey(dc: Int32, id: UInt64) throws -> StoredAuthKey? {
        try row(KeySQL.AuthKey.self, dc, Int64(bitPattern: id)) { cells -> StoredAuthKey in
            let bytes = try cells.bytes(at: 0)
            guard let key = try? MTProto.AuthKey(bytes: bytes), key.id == id else {
                throw ServerStorageError.corruptRow(table: "auth_keys", reason: "the key of id \(String(id, radix: 16)) does not match it")
            }
            let expiresIn = Int32(truncatingIfNeeded: try cells.int64(at: 2))
            let createdAt = Int32(truncatingIfNeeded: try cells.int64(at: 3))
            return StoredAuthKey(authKey: key, salt: try cells.int64(at: 1), expiresIn: expiresIn == 0 ? nil : expiresIn,
                                 createdAt: createdAt == 0 ? nil : createdAt)
        }
    }

    func authKeyCount(dc: Int32) throws -> Int { Int(try integer(KeySQL.AuthKeyCount.self, dc)) }

    func insertRSAKeyIfAbsent(_ key: RSAPrivateKey) throws {
        try execute(KeySQL.InsertRSAKey.self, Bytes(key.publicKey.modulus), Bytes(key.publicKey.exponent), Bytes(key.privateExponent))
    }

    func insert(_ key: StoredAuthKey, dc: Int32) throws {
        try execute(KeySQL.InsertAuthKey.self, dc, Int64(bitPattern: key.authKey.id), Bytes(key.authKey.bytes), key.salt,
                    key.expiresIn ?? 0, key.createdAt ?? 0)
    }
}
