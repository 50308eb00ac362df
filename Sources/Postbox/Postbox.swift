// Postbox: the client's SQLite store with atomic transactions, change records and live views.
// Built by the issue "Postbox: local SQLite store …". Nothing is implemented here yet; Postbox never imports TL.
