/// `channels.*`: create, join, leave, look up, read, delete and page messages. Channel history and posting go
/// through `messages.getHistory`/`sendMessage` with an `inputPeerChannel`.
enum ChannelsRPC {}
