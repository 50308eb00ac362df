import Foundation
import MTProto
import TL

/// `help.*` methods.
enum HelpHandlers {
    /// `help.getConfig`: this data center's address in `dc_options` and `this_dc` equal to it (clients compare
    /// them with the DC they dialled), plus the limits clients read.
    static func register(in router: inout RPCRouter, configuration: SyncServerConfiguration) {
        router.on(API.functions.help.GetConfig.self) { _, _ in
            let now = Int32(clamping: Int64(Date().timeIntervalSince1970))
            return .config(.init(
                date: now, expires: now + 3600, testMode: false, thisDc: configuration.dc,
                dcOptions: [.dcOption(.init(id: configuration.dc, ipAddress: configuration.advertisedHost, port: Int32(configuration.port)))],
                dcTxtDomainName: "", chatSizeMax: 200, megagroupSizeMax: 200_000, forwardedCountMax: 100,
                onlineUpdatePeriodMs: 210_000, offlineBlurTimeoutMs: 5_000, offlineIdleTimeoutMs: 30_000,
                onlineCloudTimeoutMs: 300_000, notifyCloudDelayMs: 30_000, notifyDefaultDelayMs: 1_500,
                pushChatPeriodMs: 60_000, pushChatLimit: 2, editTimeLimit: 172_800, revokeTimeLimit: 172_800,
                revokePmTimeLimit: 172_800, ratingEDecay: 2_419_200, stickersRecentLimit: 200,
                channelsReadMediaPeriod: 604_800, callReceiveTimeoutMs: 20_000, callRingTimeoutMs: 90_000,
                callConnectTimeoutMs: 30_000, callPacketTimeoutMs: 10_000, meUrlPrefix: "https://t.me/",
                captionLengthMax: 1_024, messageLengthMax: 4_096, webfileDcId: configuration.dc))
        }
        router.on(API.functions.help.GetNearestDc.self) { _, _ in
            .nearestDc(.init(country: "ZZ", thisDc: configuration.dc, nearestDc: configuration.dc))
        }
    }
}
