import TL

/// Every method one data center answers, each a named unit (`RPCMethod`) in `RPC/<namespace>/<Method>.swift`;
/// another method gets `400 METHOD_NOT_SUPPORTED_<NAME>` from the router.
enum MethodTable {
    /// `options`: every DC's address for `help.getConfig`.
    static func router(_ server: ServerContext, dc: Int32, options: [DCAddress]) -> RPCRouter {
        var router = RPCRouter()
        HelpRPC.register(in: &router, server: server, dc: dc, options: options)
        router.on(AuthRPC.SendCode.self, server: server)
        router.on(AuthRPC.SignIn.self, server: server)
        router.on(AuthRPC.SignUp.self, server: server)
        router.on(AuthRPC.LogOut.self, server: server)
        router.on(AuthRPC.ExportAuthorization.self, server: server)
        router.on(AuthRPC.ImportAuthorization.self, server: server)
        router.on(MessagesRPC.SendMessage.self, server: server)
        router.on(MessagesRPC.ReadHistory.self, server: server)
        router.on(MessagesRPC.SetTyping.self, server: server)
        router.on(MessagesRPC.EditMessage.self, server: server)
        router.on(MessagesRPC.DeleteMessages.self, server: server)
        router.on(MessagesRPC.GetHistory.self, server: server)
        router.on(MessagesRPC.GetMessages.self, server: server)
        router.on(MessagesRPC.GetDialogs.self, server: server)
        router.on(MessagesRPC.CreateChat.self, server: server)
        router.on(MessagesRPC.GetChats.self, server: server)
        router.on(MessagesRPC.UpdatePinnedMessage.self, server: server)
        router.on(MessagesRPC.Search.self, server: server)
        router.on(MessagesRPC.UnpinAllMessages.self, server: server)
        router.on(MessagesRPC.GetPeerDialogs.self, server: server)
        router.on(MessagesRPC.DeleteHistory.self, server: server)
        router.on(ChannelsRPC.CreateChannel.self, server: server)
        router.on(ChannelsRPC.JoinChannel.self, server: server)
        router.on(ChannelsRPC.LeaveChannel.self, server: server)
        router.on(ChannelsRPC.GetChannels.self, server: server)
        router.on(ChannelsRPC.GetMessages.self, server: server)
        router.on(ChannelsRPC.ReadHistory.self, server: server)
        router.on(ChannelsRPC.DeleteMessages.self, server: server)
        router.on(UpdatesRPC.GetState.self, server: server)
        router.on(UpdatesRPC.GetDifference.self, server: server)
        router.on(UpdatesRPC.GetChannelDifference.self, server: server)
        router.on(UsersRPC.GetUsers.self, server: server)
        router.on(UsersRPC.GetFullUser.self, server: server)
        router.on(ContactsRPC.ResolveUsername.self, server: server)
        router.on(AccountRPC.UpdateProfile.self, server: server)
        router.on(AccountRPC.CheckUsername.self, server: server)
        router.on(AccountRPC.UpdateUsername.self, server: server)
        router.on(AccountRPC.UpdateStatus.self, server: server)
        return router
    }
}
