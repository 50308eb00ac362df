/// A value of `Value`'s TL type that is already serialized (boxed, with its constructor id): for answers assembled
/// from stored bytes without decoding and re-encoding them. Whoever builds one vouches that `bytes` decode as a
/// `Value`; tests decode them to check.
public struct TLPreEncoded<Value: TLValue>: Sendable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }
}
