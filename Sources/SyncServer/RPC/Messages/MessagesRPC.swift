/// `messages.*`: sending (private chats, basic groups and channels), reading, typing, editing and deleting, history,
/// message lookups and the dialog list, and basic groups (`createChat`, `getChats`; adding and removing members after
/// creation is not implemented).
enum MessagesRPC {}
