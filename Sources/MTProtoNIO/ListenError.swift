import Foundation
import NIOCore

/// A listener that could not be opened, naming the address and what to do: NIO's own text
/// (`bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)`) names neither.
public struct ListenError: Error, CustomStringConvertible {
    public let host: String
    public let port: Int
    /// The system's error number, when the system refused.
    public let errno: CInt?
    let underlying: String

    public init(host: String, port: Int, error: any Error) {
        self.host = host
        self.port = port
        errno = (error as? IOError)?.errnoCode
        underlying = "\(error)"
    }

    public var description: String {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return switch errno {
        case EADDRINUSE?: "cannot listen on \(address): the address is in use (another process listens there; give each server its own port)"
        case EACCES?: "cannot listen on \(address): permission denied (ports below 1024 need privileges)"
        case EADDRNOTAVAIL?: "cannot listen on \(address): no network interface has this address"
        default: "cannot listen on \(address): \(underlying)"
        }
    }

    /// Runs `bind`, naming the address in its failure.
    public static func naming<T>(host: String, port: Int, _ bind: () async throws -> T) async throws -> T {
        do { return try await bind() } catch { throw ListenError(host: host, port: port, error: error) }
    }
}
