import Foundation
import MTProto

/// An auth key the client holds for one data center (core.telegram.org/mtproto/auth_key), with what it learned
/// about it: the current salt, the clock offset, and the user the key is logged in as, if any.
public struct StoredClientKey: Codable, Equatable, Sendable {
    public var authKey: [UInt8]
    public var serverSalt: Int64
    public var serverTimeOffset: Int32
    /// The account this key is authorized for (after `auth.signIn` or `auth.importAuthorization`), nil if none.
    public var userID: Int64?

    public init(authKey: [UInt8], serverSalt: Int64, serverTimeOffset: Int32, userID: Int64? = nil) {
        self.authKey = authKey
        self.serverSalt = serverSalt
        self.serverTimeOffset = serverTimeOffset
        self.userID = userID
    }

    public init(_ result: AuthKeyExchangeResult, userID: Int64? = nil) {
        self.init(authKey: result.authKey.bytes, serverSalt: result.serverSalt, serverTimeOffset: result.serverTimeOffset,
                  userID: userID)
    }

    /// The key as a session starts from it; nil if the stored bytes are not a 2048-bit key.
    public var exchangeResult: AuthKeyExchangeResult? {
        guard let key = try? AuthKey(bytes: authKey) else { return nil }
        return AuthKeyExchangeResult(authKey: key, serverSalt: serverSalt, serverTimeOffset: serverTimeOffset, dc: nil, expiresIn: nil)
    }
}

/// What the client's network layer keeps across restarts: the shared data-center directory, one auth key per data
/// center (so no exchange is ever repeated while a key is valid), and the account's home ("master") data center.
public struct NetworkState: Codable, Equatable, Sendable {
    public var directory: DataCenterDirectory
    public var keys: [Int32: StoredClientKey]
    public var masterDC: Int32?

    public init(directory: DataCenterDirectory, keys: [Int32: StoredClientKey] = [:], masterDC: Int32? = nil) {
        self.directory = directory
        self.keys = keys
        self.masterDC = masterDC
    }
}

public enum NetworkStateError: Error, Equatable, Sendable {
    /// The file exists but is not a network state this build can read.
    case unreadable(path: String, reason: String)
    case cannotWrite(path: String, reason: String)
}

/// `NetworkState` in one JSON file, readable only by its owner (it holds auth keys), replaced atomically on save so a
/// crash leaves the old state or the new one, never half of each.
public struct NetworkStateFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The saved state, or nil when there is none yet.
    public func load() throws(NetworkStateError) -> NetworkState? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try JSONDecoder().decode(NetworkState.self, from: data)
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    public func save(_ state: NetworkState) throws(NetworkStateError) {
        let temporary = path + ".tmp"
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(state)
            guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw NetworkStateError.cannotWrite(path: temporary, reason: "cannot create the file")
            }
            guard rename(temporary, path) == 0 else {
                throw NetworkStateError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
            }
        } catch let error as NetworkStateError {
            throw error
        } catch {
            throw .cannotWrite(path: path, reason: "\(error)")
        }
    }
}
