import Foundation
import MTProto
import TL

/// `help.*` methods.
enum HelpRPC {
    /// `help.getConfig`: every served data center's address in `dc_options` and `this_dc` the one answering
    /// (clients compare it with the DC they dialled and follow `dc_options` on a migrate), plus the limits clients read.
    static func register(in router: inout RPCRouter, server: ServerContext, dc: Int32, options: [DCAddress]) {
        router.on(API.functions.help.GetConfig.self) { _, _ in
            let now = server.now
            return .config(.init(
                date: now, expires: now + 3600, testMode: false, thisDc: dc,
                dcOptions: options.map { .dcOption(.init(id: $0.dc, ipAddress: $0.host, port: Int32($0.port))) },
                dcTxtDomainName: "", chatSizeMax: 200, megagroupSizeMax: 200_000, forwardedCountMax: 100,
                onlineUpdatePeriodMs: 210_000, offlineBlurTimeoutMs: 5_000, offlineIdleTimeoutMs: 30_000,
                onlineCloudTimeoutMs: 300_000, notifyCloudDelayMs: 30_000, notifyDefaultDelayMs: 1_500,
                pushChatPeriodMs: 60_000, pushChatLimit: 2, editTimeLimit: 172_800, revokeTimeLimit: 172_800,
                revokePmTimeLimit: 172_800, ratingEDecay: 2_419_200, stickersRecentLimit: 200,
                channelsReadMediaPeriod: 604_800, callReceiveTimeoutMs: 20_000, callRingTimeoutMs: 90_000,
                callConnectTimeoutMs: 30_000, callPacketTimeoutMs: 10_000, meUrlPrefix: "https://t.me/",
                captionLengthMax: 1_024, messageLengthMax: Int32(InputLimits.messageLength), webfileDcId: dc))
        }
        router.on(API.functions.help.GetNearestDc.self) { _, _ in
            .nearestDc(.init(country: "ZZ", thisDc: dc, nearestDc: dc))
        }
    }
}
