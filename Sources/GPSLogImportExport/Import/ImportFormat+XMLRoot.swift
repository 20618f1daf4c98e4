// SPDX-License-Identifier: MIT

extension ImportFormat {
    /// The format an XML document's root element names, by its local name (after any prefix): KML's `kml`, TCX's
    /// `TrainingCenterDatabase`; nil for any other root, or when the head holds none. The XML declaration, comments,
    /// processing instructions and a DOCTYPE before it are skipped.
    static func xmlFormat(root text: String) -> ImportFormat? {
        var rest = Substring(text).drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        while rest.hasPrefix("<?") || rest.hasPrefix("<!") {
            // A DOCTYPE's internal subset holds `>`s of its own (the parser refuses DTDs; detection gets past them).
            let subset = rest.hasPrefix("<!DOCTYPE") && rest.prefix { $0 != ">" }.contains("[")
            let end = rest.hasPrefix("<!--") ? "-->" : subset ? "]>" : ">"
            guard let close = rest.range(of: end) else { return nil }
            rest = rest[close.upperBound...].drop { $0.isWhitespace }
        }
        guard rest.hasPrefix("<") else { return nil }
        let name = rest.dropFirst().prefix { !$0.isWhitespace && $0 != ">" && $0 != "/" }
        switch name.split(separator: ":").last {
        case "kml": return .kml
        case "TrainingCenterDatabase": return .tcx
        default: return nil
        }
    }
}
