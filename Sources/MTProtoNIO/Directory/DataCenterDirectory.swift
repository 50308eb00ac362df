import Foundation
import TL

/// One way to reach a data center (an entry of `help.getConfig`'s `dc_options`, core.telegram.org/constructor/dcOption).
public struct DataCenterAddress: Codable, Hashable, Sendable {
    public var host: String
    public var port: Int
    public var isIPv6: Bool
    /// Prefer this address for downloads (`media_only`).
    public var isMedia: Bool
    /// A CDN data center: files only, never an account's session.
    public var isCDN: Bool
    /// Use this address when connecting through a proxy (`static`).
    public var preferForProxy: Bool
    /// An MTProxy secret this address must be reached with, if any.
    public var secret: [UInt8]?

    public init(host: String, port: Int, isIPv6: Bool = false, isMedia: Bool = false, isCDN: Bool = false,
                preferForProxy: Bool = false, secret: [UInt8]? = nil) {
        self.host = host
        self.port = port
        self.isIPv6 = isIPv6
        self.isMedia = isMedia
        self.isCDN = isCDN
        self.preferForProxy = preferForProxy
        self.secret = secret
    }

    public init(_ option: API.DcOption) {
        switch option {
        case let .dcOption(option):
            self.init(host: option.ipAddress, port: Int(option.port), isIPv6: option.ipv6, isMedia: option.mediaOnly,
                      isCDN: option.cdn, preferForProxy: option.static, secret: option.secret.map { [UInt8]($0) })
        }
    }
}

/// The client's addresses for every data center, shared by every connection (one directory per account store, not
/// one per connection: Telegram-iOS's per-context copies are part of why its first login opens 20 connections).
///
/// Selection prefers the address whose last failure is the oldest (never failed first, then in the order given), so
/// a dead address is retried only after every other one failed since. `apply` takes a `help.getConfig` answer and
/// reports which data centers' address sets actually changed, so only their connections restart. Sans I/O: times
/// are passed in; `DataCenterDirectoryFile` persists it.
public struct DataCenterDirectory: Codable, Equatable, Sendable {
    struct Entry: Codable, Equatable, Sendable {
        var address: DataCenterAddress
        /// Seconds since 1970 of the last failure to connect, nil if it never failed.
        var lastFailure: Double?
    }

    private var entries: [Int32: [Entry]] = [:]

    public init(seed: [Int32: [DataCenterAddress]] = [:]) {
        for (dc, addresses) in seed { entries[dc] = addresses.map { Entry(address: $0) } }
    }

    /// The data centers that have at least one address.
    public var dataCenters: [Int32] { entries.filter { !$0.value.isEmpty }.keys.sorted() }

    public func addresses(of dc: Int32) -> [DataCenterAddress] {
        entries[dc, default: []].map(\.address)
    }

    /// The address to try next for `dc`: never a CDN one; media addresses for downloads when there are any (and
    /// never for the main connection while other addresses exist); addresses meant for proxies when connecting
    /// through one; IPv4 before IPv6; then the one whose last failure is oldest.
    public func address(of dc: Int32, media: Bool = false, viaProxy: Bool = false) -> DataCenterAddress? {
        var candidates = entries[dc, default: []].enumerated().filter { !$0.element.address.isCDN }
        let matchingMedia = candidates.filter { $0.element.address.isMedia == media }
        if !matchingMedia.isEmpty { candidates = matchingMedia }
        if viaProxy {
            let forProxy = candidates.filter { $0.element.address.preferForProxy }
            if !forProxy.isEmpty { candidates = forProxy }
        }
        return candidates.min { left, right in
            let (l, r) = (left.element, right.element)
            if l.address.isIPv6 != r.address.isIPv6 { return !l.address.isIPv6 }
            if l.lastFailure != r.lastFailure { return (l.lastFailure ?? -.infinity) < (r.lastFailure ?? -.infinity) }
            return left.offset < right.offset
        }?.element.address
    }

    /// Remembers that connecting to `address` of `dc` failed at `time`.
    public mutating func recordFailure(of address: DataCenterAddress, dc: Int32, at time: Double) {
        guard let index = entries[dc]?.firstIndex(where: { $0.address == address }) else { return }
        entries[dc]?[index].lastFailure = time
    }

    /// Replaces the address sets with those of `help.getConfig`'s `dc_options` and returns the data centers whose set
    /// changed (added, removed or different addresses). Failure times of addresses that stay are kept. A data center
    /// the answer does not name keeps its addresses (a config lists the DCs it knows, not a deletion of the others).
    @discardableResult
    public mutating func apply(_ options: [API.DcOption]) -> Set<Int32> {
        var fresh: [Int32: [DataCenterAddress]] = [:]
        for option in options {
            let (dc, address) = switch option { case let .dcOption(value): (value.id, DataCenterAddress(option)) }
            if !fresh[dc, default: []].contains(address) { fresh[dc, default: []].append(address) }
        }
        var changed: Set<Int32> = []
        for (dc, addresses) in fresh {
            let old = entries[dc, default: []]
            guard old.map(\.address) != addresses else { continue }
            changed.insert(dc)
            entries[dc] = addresses.map { address in Entry(address: address, lastFailure: old.first { $0.address == address }?.lastFailure) }
        }
        return changed
    }
}
