import NIOCore

extension TimeAmount {
    /// `duration` in NIO's unit (nanoseconds, saturating).
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        self = .nanoseconds(overflow ? .max : whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue)
    }
}
