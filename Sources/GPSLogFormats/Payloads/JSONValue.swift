// SPDX-License-Identifier: MIT

/// Numbers from JSONSerialization (NSNumber bridges to Double or Int).
enum JSONValue {
    static func double(_ v: Any?) -> Double? {
        if let d = v as? Double { return d.isFinite ? d : nil }
        if let i = v as? Int { return Double(i) }
        return nil
    }
}
