import MTProto
import SyncServer

/// One RSA key for the servers the tests start: given to a server process's data directory before its first start
/// (which imports it into the store), so the test knows the key the clients must trust without reading it from the
/// database, and to in-process servers as `SyncServerConfiguration.initialRSAKey` — made once per test process instead
/// of once per server (a 2048-bit key takes about a second of CPU; the suite starts hundreds of servers).
public enum TestServerKey {
    private static let shared = Result { try RSAPrivateKey.generate(bits: 2048) }

    /// The key (nil only if it could not be made: a server given nil makes its own).
    public static var key: RSAPrivateKey? { try? shared.get() }

    /// Installs the key in `dataDirectory` and returns its public half.
    public static func install(inDirectory dataDirectory: String) throws -> RSAPublicKey {
        let key = try shared.get()
        try ServerKeys.install(key, inDirectory: dataDirectory)
        return key.publicKey
    }
}
