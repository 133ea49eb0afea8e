import AccessoryConfig

/// What a view may receive: the accessory's `access:` is checked against the view's owner and
/// group for what the view delivers to its program, as it is for what the view sends (its
/// requests carry the same credentials, ``RequestOrigin``). Without this, a view whose owner may
/// not use the accessory would still show that owner every frame no request claimed: a pty of
/// `owner: alice` is alice's to open, whatever `access:` says of alice. Device loop only.
extension PtyView {
    /// Whether `a`'s `access:` allows the view's owner (and group); said once in the log when it
    /// does not, again after it allowed them meanwhile (a reload may change `access:`).
    func mayReceive(from a: Accessory) -> Bool {
        if a.access.allows(uid: uid, gid: gid, groups: groups) {
            accessDeniedLogged = false
            return true
        }
        if !accessDeniedLogged {
            accessDeniedLogged = true
            registry?.log(
                .warning,
                "view \(link.path): \(accessoryName)'s access: does not allow the view's owner (uid \(uid), "
                    + "gid \(gid)), so its program receives none of the accessory's data (said once)"
            )
        }
        return false
    }
}
