// SPDX-License-Identifier: MIT
import CLibXML2
import Foundation
import GPSLogSystem

/// What an `XMLSAXParser` reports. Names and text arrive as bytes that live only for the call (no String is made
/// per node: the SAX parser exists for the hot paths, importing millions of GPX points).
public protocol XMLSAXHandler: AnyObject {
    /// An element starts. `namespace` is its URI (empty when none).
    func startElement(_ name: XMLName, namespace: XMLName, attributes: XMLAttributes) throws
    /// An element ends.
    func endElement(_ name: XMLName, namespace: XMLName) throws
    /// Text (also CDATA), possibly in several pieces per element.
    func characters(_ text: UnsafeBufferPointer<UInt8>)
}

/// A NUL-terminated name from libxml2's dictionary, valid during the callback.
public struct XMLName {
    let pointer: UnsafePointer<UInt8>?

    /// True when the name is `literal` (ASCII).
    @inline(__always) public func equals(_ literal: StaticString) -> Bool {
        guard let pointer else { return literal.utf8CodeUnitCount == 0 }
        return strcmp(
            UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self),
            UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
    }

    /// The name as a String (for messages; not on hot paths).
    public var string: String { pointer.map { String(cString: $0) } ?? "" }

    /// True when there is no name (an element in no namespace).
    public var isEmpty: Bool { pointer == nil || pointer!.pointee == 0 }

    /// True when the name is exactly `bytes` (a name kept from an earlier event, such as the root's namespace).
    public func equals(_ bytes: [UInt8]) -> Bool {
        guard let pointer else { return bytes.isEmpty }
        return bytes.withUnsafeBufferPointer { b in
            strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self)) == b.count
                && (b.isEmpty || memcmp(pointer, b.baseAddress!, b.count) == 0)
        }
    }

    /// The name's bytes (to keep past the callback).
    public var bytes: [UInt8] {
        guard let pointer else { return [] }
        return Array(
            UnsafeBufferPointer(
                start: pointer, count: strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))))
    }
}

/// The attributes of a starting element (libxml2's SAX2 quintuples: local name, prefix, URI, value start, value
/// end), valid during the callback.
public struct XMLAttributes {
    let base: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    let count: Int

    /// The raw value of the attribute with this local name (no namespace), entities already decoded.
    public func value(_ localName: StaticString) -> UnsafeBufferPointer<UInt8>? {
        guard let base else { return nil }
        for i in 0..<count {
            let q = base + i * 5
            guard XMLName(pointer: q[0]).equals(localName), q[2] == nil, let start = q[3], let end = q[4] else {
                continue
            }
            return UnsafeBufferPointer(start: start, count: end - start)
        }
        return nil
    }

    /// The value as a String.
    public func string(_ localName: StaticString) -> String? {
        value(localName).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// A streaming XML parser over libxml2's SAX2 push interface: the file is fed in 256 KiB chunks (a zip entry in the
/// pieces it inflates to) and each node is reported as it is parsed, so memory stays flat and nothing is built per
/// node. About twice as fast as the `xmlTextReader` behind `XMLStreamReader`, which builds and frees a tree node for
/// every element.
///
/// Hostile input is refused as `XMLStreamReader` refuses it: no network, no DTD (a DOCTYPE stops the parse, so no
/// XXE and no billion laughs), no entity but the five predefined ones and character references. An element with more
/// than 1,000 attributes or namespace declarations is refused before libxml2 reads it (it takes quadratic time over
/// them: see `XMLAttributeCounter`).
public final class XMLSAXParser {
    /// The file being read (for messages).
    public let file: String
    // Strong (the handler's reference back to the parser is the unowned one, so there is no cycle): read through
    // the borrowed parser in the callbacks, it costs no retain per event, where an `unowned` reference did.
    private let handler: XMLSAXHandler
    private var context: xmlParserCtxtPtr?
    private let collector: XMLErrorCollector
    /// The first error a callback threw; the parse stops there.
    private var failure: Error?
    private var attributes = XMLAttributeCounter()

    /// A parser that reports to `handler` (which may keep an unowned reference to the parser, for `line`).
    public init(file: String, handler: XMLSAXHandler) {
        self.file = file
        self.handler = handler
        collector = XMLErrorCollector(file: file)
    }

    /// Parses the file named at init, calling the handler for each node. Returns when the document ends.
    /// - Throws: `XMLError` with libxml2's message and line, or the first error the handler threw.
    public func parseFile() throws {
        let path = file
        let fd: Int32
        do {
            fd = try systemCall { open(path, O_RDONLY | O_CLOEXEC) }
        } catch {
            throw XMLError(file: path, line: 0, column: 0, message: "cannot open the file for reading: \(error.reason)")
        }
        defer { close(fd) }
        let size = 1 << 18
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
        defer { buffer.deallocate() }
        try parse { feed in
            while true {
                let n: Int
                do throws(SystemCallError) {
                    n = try systemCall { read(fd, buffer.baseAddress, size) }
                } catch {
                    throw XMLError(file: path, line: 0, column: 0, message: "read failed: \(error.reason)")
                }
                if n == 0 { return }
                try feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            }
        }
    }

    /// Parses a document that arrives in pieces (a zip entry as it is inflated): `body` hands each piece, in order,
    /// to the function it is given; the document ends when `body` returns. Memory stays flat as for a file.
    /// - Throws: `XMLError` with libxml2's message and line, the first error the handler threw, or what `body` threw.
    public func parse(pieces body: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        try start()
        var first = true
        try body { piece in
            guard !piece.isEmpty else { return }
            try self.push(piece, first: first)
            first = false
        }
        try push(UnsafeRawBufferPointer(start: nil, count: 0), first: false, final: true)
    }

    deinit {
        if let context { xmlFreeParserCtxt(context) }
    }

    /// The line the parser is at (1-based), in the file as it is (white space skipped before the XML declaration
    /// counts).
    public var line: Int {
        context.map { Int(xmlSAX2GetLineNumber(UnsafeMutableRawPointer($0))) + skippedLines } ?? 0
    }
    /// Lines of white space skipped before the XML declaration (libxml2 refuses them; people's editors add them).
    private var skippedLines = 0

    /// Records a handler's error and stops the parser.
    private func fail(_ error: Error) {
        if failure == nil { failure = error }
        if let context { xmlStopParser(context) }
    }

    /// Creates the push parser, with the callbacks that report to the handler.
    private func start() throws {
        var sax = xmlSAXHandler()
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        // The callbacks borrow the parser (`_withUnsafeGuaranteedRef`: it is alive for the whole parse) instead of
        // taking a strong reference, which costs an atomic retain and release on every event. They do not test
        // `failure` (a run-time exclusivity check per event): `fail` calls xmlStopParser, which sets disableSAX, and
        // libxml2 makes no callback after that.
        sax.startElementNs = { ctx, localname, _, uri, _, _, count, _, attributes in
            Unmanaged<XMLSAXParser>.fromOpaque(ctx!)._withUnsafeGuaranteedRef { me in
                do {
                    try me.handler.startElement(
                        XMLName(pointer: localname), namespace: XMLName(pointer: uri),
                        attributes: XMLAttributes(base: attributes, count: Int(count)))
                } catch { me.fail(error) }
            }
        }
        sax.endElementNs = { ctx, localname, _, uri in
            Unmanaged<XMLSAXParser>.fromOpaque(ctx!)._withUnsafeGuaranteedRef { me in
                do { try me.handler.endElement(XMLName(pointer: localname), namespace: XMLName(pointer: uri)) } catch {
                    me.fail(error)
                }
            }
        }
        let characters: charactersSAXFunc = { ctx, text, length in
            Unmanaged<XMLSAXParser>.fromOpaque(ctx!)._withUnsafeGuaranteedRef { me in
                guard let text else { return }
                me.handler.characters(UnsafeBufferPointer(start: text, count: Int(length)))
            }
        }
        sax.characters = characters
        sax.cdataBlock = characters
        sax.internalSubset = { ctx, _, _, _ in
            let me = Unmanaged<XMLSAXParser>.fromOpaque(ctx!).takeUnretainedValue()
            me.fail(
                XMLError(
                    file: me.file, line: me.line, column: 0,
                    message: "DTDs and entities are not accepted (they enable XXE and billion-laughs attacks)"))
        }
        sax.serror = { ctx, error in
            guard let ctx, let error else { return }
            let me = Unmanaged<XMLSAXParser>.fromOpaque(ctx).takeUnretainedValue()
            // Warnings (level 1) are not failures.
            if error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue {
                me.collector.errors.append(XMLError(UnsafePointer(error), fallbackFile: me.file))
            }
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let ctxt = xmlCreatePushParserCtxt(&sax, me, nil, 0, file) else {
            throw XMLError(file: file, line: 0, column: 0, message: "cannot create an XML parser")
        }
        context = ctxt
        xmlCtxtUseOptions(ctxt, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue))
    }

    /// Parses one piece (`final`: the end of the document), once its start tags are counted. An element with too
    /// many attributes is refused with the line it starts on: the bytes before it are parsed first, so the parser's
    /// line is there.
    private func push(_ piece: UnsafeRawBufferPointer, first: Bool, final: Bool = false) throws {
        if let start = attributes.scan(piece) {
            if start > 0 { try feed(UnsafeRawBufferPointer(rebasing: piece[0..<start]), first: first) }
            throw XMLError(file: file, line: line, column: 0, message: XMLAttributeCounter.refusal)
        }
        try feed(piece, first: first, final: final)
    }

    /// Hands one piece to libxml2. The first piece may start with white space before the XML declaration, which is
    /// skipped (see `skipWhitespaceBeforeDeclaration`).
    private func feed(_ piece: UnsafeRawBufferPointer, first: Bool, final: Bool = false) throws {
        guard let ctxt = context else { return }
        var bytes = piece.baseAddress.map { UnsafePointer<CChar>($0.assumingMemoryBound(to: CChar.self)) }
        var count = piece.count
        var withMark: [CChar] = []
        if first, let base = bytes {
            let (start, keepsMark) = skipWhitespaceBeforeDeclaration(UnsafeBufferPointer(start: base, count: count))
            if keepsMark {
                // The byte order mark moves up to the declaration (the piece is not ours to write into).
                withMark = [-17, -69, -65] + UnsafeBufferPointer(start: base + start, count: count - start)
            } else {
                bytes = base + start
                count -= start
            }
        }
        let rc =
            withMark.isEmpty
            ? xmlParseChunk(ctxt, bytes, Int32(count), final ? 1 : 0)
            : withMark.withUnsafeBufferPointer { xmlParseChunk(ctxt, $0.baseAddress, Int32($0.count), final ? 1 : 0) }
        if let failure { throw failure }
        if rc != 0 || !collector.errors.isEmpty {
            var error = collector.error(or: "parsing \(file)")
            if error.line > 0 { error.line += skippedLines }
            throw error
        }
    }
}

extension XMLSAXParser {
    /// Where the document starts in its first chunk: past white space that comes before an XML declaration (after a
    /// UTF-8 byte order mark, if any), which XML forbids and libxml2 refuses ("XML declaration allowed only at the
    /// start of the document") but GPSBabel and GDAL read. The lines skipped are added to every line reported.
    /// `keepsMark`: the chunk starts with a UTF-8 byte order mark, which must be handed to libxml2 right before the
    /// declaration.
    fileprivate func skipWhitespaceBeforeDeclaration(_ chunk: UnsafeBufferPointer<CChar>) -> (
        start: Int, keepsMark: Bool
    ) {
        let bom: [CChar] = [-17, -69, -65]  // EF BB BF
        let hasBOM = chunk.count >= 3 && Array(chunk[0..<3]) == bom
        var i = hasBOM ? 3 : 0
        var lines = 0
        while i < chunk.count, [0x20, 0x09, 0x0A, 0x0D].contains(chunk[i]) {
            if chunk[i] == 0x0A { lines += 1 }
            i += 1
        }
        let declaration: [CChar] = Array("<?xml".utf8).map { CChar(bitPattern: $0) }
        guard i > (hasBOM ? 3 : 0), chunk.count - i >= 5, Array(chunk[i..<(i + 5)]) == declaration else {
            return (0, false)
        }
        skippedLines = lines
        return (i, hasBOM)
    }
}

@available(*, unavailable)
extension XMLSAXParser: Sendable {}
