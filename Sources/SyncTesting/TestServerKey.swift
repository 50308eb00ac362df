import MTProto
import SyncServer

/// One RSA key for the server processes a test starts, given to their data directory before the first start (which
/// imports it into the store): the test knows the key the clients must trust without reading it from the database.
public enum TestServerKey {
    private static let shared = Result { try RSAPrivateKey.generate(bits: 2048) }

    /// Installs the key in `dataDirectory` and returns its public half.
    public static func install(inDirectory dataDirectory: String) throws -> RSAPublicKey {
        let key = try shared.get()
        try ServerKeys.install(key, inDirectory: dataDirectory)
        return key.publicKey
    }
}
