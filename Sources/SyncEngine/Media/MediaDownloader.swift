import Foundation
import MTProto
import MTProtoNIO
import Postbox
import TL

/// Fetches media resources into a `MediaBox` (core.telegram.org/api/files#downloading-files): the parts not held yet,
/// 512 KiB each, several in flight on the download workers of the resource's data center (`ConnectionManager`: at most
/// four connections per data center beside the main one, on its key; another data center is logged in with an
/// exported authorization), each part written and listed as it arrives — so a fetch stopped by a kill or a restart
/// goes on from its parts. `FILE_MIGRATE_X` moves the fetch to data center X; `FILE_REFERENCE_EXPIRED` asks the
/// caller's `refresh` for a fresh location (the message fetched again) once per part. Several callers of one
/// resource share one fetch, each with its progress.
public actor MediaDownloader {
    public static let partSize: Int64 = 512 * 1024

    /// How many bytes of a resource are held, as a fetch goes on.
    public struct Progress: Sendable, Equatable {
        public let held: Int64
        public let size: Int64
    }

    public let box: MediaBox
    private let network: ConnectionManager
    private let parallel: Int
    private var fetches: [String: Fetch] = [:]
    /// Bytes received from the network since this downloader was made (what a resumed fetch saves shows here).
    public private(set) var bytesFetched: Int64 = 0

    /// `parallel`: parts in flight per fetch (the workers of a data center take them).
    public init(box: MediaBox, network: ConnectionManager, parallel: Int = 4) {
        self.box = box
        self.network = network
        self.parallel = max(1, parallel)
    }

    /// The complete file of `resource`, fetched as needed. `progress` sees the held bytes after each part stored from
    /// then on. `refresh` returns a fresh location when the reference expired.
    public func download(_ resource: MediaResource, progress: (@Sendable (Progress) -> Void)? = nil,
                         refresh: (@Sendable () async throws -> API.InputFileLocation)? = nil) async throws -> String {
        if let done = try await box.completePath(resource.id) { return done }
        let fetch: Fetch
        if let running = fetches[resource.id] {
            fetch = running
        } else {
            fetch = Fetch()
            fetch.task = Task { try await self.run(resource, refresh: refresh, fetch: fetch) }
            fetches[resource.id] = fetch
        }
        if let progress { fetch.listeners.append(progress) }
        defer { if fetches[resource.id] === fetch { fetches[resource.id] = nil } }
        guard let task = fetch.task else { throw MediaDownloadError.incomplete(resource.id) }
        return try await task.value
    }

    /// Progress as an async sequence: the held bytes of `resource` after each part of a download.
    public nonisolated func progress(of resource: MediaResource,
                                     refresh: (@Sendable () async throws -> API.InputFileLocation)? = nil) -> AsyncThrowingStream<Progress, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    _ = try await self.download(resource, progress: { continuation.yield($0) }, refresh: refresh)
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The bytes of `range` of `resource`, fetching only the parts that cover it (the first bytes of a large file
    /// before the rest).
    public func bytes(of resource: MediaResource, in range: Range<Int64>,
                      refresh: (@Sendable () async throws -> API.InputFileLocation)? = nil) async throws -> [UInt8] {
        let clamped = max(0, range.lowerBound)..<min(resource.size, range.upperBound)
        guard !clamped.isEmpty else { return [] }
        if let held = try await box.read(resource.id, range: clamped) { return held }
        let parts = Int(clamped.lowerBound / Self.partSize)...Int((clamped.upperBound - 1) / Self.partSize)
        var state = FetchState(resource: resource)
        try await fetch(parts: Array(parts), state: &state, refresh: refresh, fetch: nil)
        guard let bytes = try await box.read(resource.id, range: clamped) else { throw MediaDownloadError.incomplete(resource.id) }
        return bytes
    }

    private func run(_ resource: MediaResource, refresh: (@Sendable () async throws -> API.InputFileLocation)?,
                     fetch: Fetch) async throws -> String {
        let count = Int((resource.size + Self.partSize - 1) / Self.partSize)
        let held = try await box.heldRanges(resource.id)
        let missing = (0..<count).filter { part in
            let range = Int64(part) * Self.partSize..<min(resource.size, Int64(part + 1) * Self.partSize)
            return !held.contains { $0.lowerBound <= range.lowerBound && $0.upperBound >= range.upperBound }
        }
        var state = FetchState(resource: resource)
        try await self.fetch(parts: missing, state: &state, refresh: refresh, fetch: fetch)
        guard let path = try await box.complete(resource.id, size: resource.size) else { throw MediaDownloadError.incomplete(resource.id) }
        return path
    }

    /// Where a fetch stands: the data center and location it learned (a migrate, a refreshed reference), bounded so
    /// that a server answering every part with one of them ends the fetch.
    struct FetchState: Sendable {
        var resource: MediaResource
        var migrations = 0
        var refreshes = 0
        static let maximumMigrations = 4
        static let maximumRefreshes = 3
    }

    /// Fetches `parts` with at most `parallel` in flight; a part that meets a migrate or an expired reference is sent
    /// again with what that says.
    private func fetch(parts: [Int], state: inout FetchState, refresh: (@Sendable () async throws -> API.InputFileLocation)?,
                       fetch: Fetch?) async throws {
        var pending = parts[...]
        while !pending.isEmpty {
            let batch = Array(pending.prefix(parallel))
            pending = pending.dropFirst(batch.count)
            let current = state.resource
            let results = await withTaskGroup(of: (Int, Result<[UInt8], any Error>).self) { group in
                for part in batch {
                    group.addTask { (part, await Result(catching: { try await self.part(part, of: current) })) }
                }
                var results: [(Int, Result<[UInt8], any Error>)] = []
                for await result in group { results.append(result) }
                return results
            }
            var retry: [Int] = []
            for (part, result) in results.sorted(by: { $0.0 < $1.0 }) {
                switch result {
                case let .success(bytes):
                    try await store(bytes, part: part, resource: current, fetch: fetch)
                case let .failure(MTProtoClientError.rpc(error)) where error.code == 303 && error.message.hasPrefix("FILE_MIGRATE_"):
                    guard let dc = Int32(error.message.dropFirst("FILE_MIGRATE_".count)) else { throw MTProtoClientError.rpc(error) }
                    if state.resource.dc != dc {
                        state.migrations += 1
                        guard state.migrations <= FetchState.maximumMigrations else { throw MTProtoClientError.rpc(error) }
                        state.resource.dc = dc
                    }
                    retry.append(part)
                case let .failure(MTProtoClientError.rpc(error)) where error.message == "FILE_REFERENCE_EXPIRED":
                    if state.resource.location == current.location {   // the first part of the batch to meet it refreshes
                        state.refreshes += 1
                        guard let refresh, state.refreshes <= FetchState.maximumRefreshes else { throw MTProtoClientError.rpc(error) }
                        state.resource.location = try await refresh()
                    }
                    retry.append(part)
                case let .failure(error):
                    throw error
                }
            }
            pending = retry[...] + pending
        }
    }

    private func part(_ part: Int, of resource: MediaResource) async throws -> [UInt8] {
        let offset = Int64(part) * Self.partSize
        guard case let .file(file) = try await network.send(API.functions.upload.GetFile(location: resource.location, offset: offset,
                                                                                         limit: Int32(Self.partSize)),
                                                            dc: resource.dc, download: true) else {
            throw MediaDownloadError.unsupported("a CDN redirect")
        }
        let expected = Int(min(Self.partSize, resource.size - offset))
        guard file.bytes.count == expected else { throw MediaDownloadError.shortPart(part, got: file.bytes.count, expected: expected) }
        return [UInt8](file.bytes)
    }

    private func store(_ bytes: [UInt8], part: Int, resource: MediaResource, fetch: Fetch?) async throws {
        bytesFetched += Int64(bytes.count)
        try await box.write(resource.id, offset: Int64(part) * Self.partSize, bytes: bytes)
        guard let fetch, !fetch.listeners.isEmpty else { return }
        let held = try await box.heldRanges(resource.id).reduce(Int64(0)) { $0 + Int64($1.count) }
        for listener in fetch.listeners { listener(Progress(held: held, size: resource.size)) }
    }

    /// One resource's fetch and those waiting on it.
    final class Fetch: @unchecked Sendable {
        var task: Task<String, any Error>?
        var listeners: [@Sendable (Progress) -> Void] = []
    }
}

public enum MediaDownloadError: Error, Equatable, CustomStringConvertible {
    case incomplete(String)
    case shortPart(Int, got: Int, expected: Int)
    case unsupported(String)

    public var description: String {
        switch self {
        case let .incomplete(id): "the download of \(id) ended with parts missing"
        case let .shortPart(part, got, expected): "part \(part) came with \(got) bytes, \(expected) expected"
        case let .unsupported(what): "\(what) is not supported"
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
