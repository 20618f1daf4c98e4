// SPDX-License-Identifier: MIT
import CLibXML2

/// Validates XML documents against an XSD with libxml2 (`xmlschemas`).
public final class SchemaValidator {
    private let schema: xmlSchemaPtr
    private let context: xmlSchemaValidCtxtPtr
    private let collector: XMLErrorCollector
    /// The schema file.
    public let schemaPath: String

    /// Loads and compiles a schema; imported schemas are resolved relative to it, from local files only.
    /// - Throws: `XMLError` with libxml2's message when the schema is unreadable or invalid.
    public init(schemaPath: String) throws {
        self.schemaPath = schemaPath
        let parseErrors = XMLErrorCollector(file: schemaPath)
        guard let parser = xmlSchemaNewParserCtxt(schemaPath) else {
            throw XMLError(file: schemaPath, line: 0, column: 0, message: "cannot read the schema")
        }
        defer { xmlSchemaFreeParserCtxt(parser) }
        xmlSchemaSetParserStructuredErrors(parser, XMLErrorCollector.handler, parseErrors.context)
        // Errors in the schema document's own XML go to the thread's handler, not the schema parser's: catch them
        // too, so the message names the real problem and its line.
        xmlSetStructuredErrorFunc(parseErrors.context, XMLErrorCollector.handler)
        let parsed = xmlSchemaParse(parser)
        xmlSetStructuredErrorFunc(nil, nil)
        guard let schema = parsed else { throw parseErrors.error(or: "parsing the schema") }
        guard let context = xmlSchemaNewValidCtxt(schema) else {
            xmlSchemaFree(schema)
            throw XMLError(file: schemaPath, line: 0, column: 0, message: "cannot create a validation context")
        }
        self.schema = schema
        self.context = context
        collector = XMLErrorCollector(file: nil)
        xmlSchemaSetValidStructuredErrors(context, XMLErrorCollector.handler, collector.context)
    }

    deinit {
        xmlSchemaFreeValidCtxt(context)
        xmlSchemaFree(schema)
    }

    /// Validates a file, streaming it.
    /// - Returns: every validation error (empty when the file is valid), each with file, line and libxml2's message.
    public func validate(file path: String) -> [XMLError] {
        collector.errors = []
        let rc = xmlSchemaValidateFile(context, path, 0)
        var errors = collector.errors.map { e -> XMLError in
            var e = e
            if e.file == nil { e.file = path }
            return e
        }
        if rc != 0 && errors.isEmpty {
            errors.append(
                XMLError(
                    file: path, line: 0, column: 0,
                    message: rc < 0 ? "internal validation error" : "document is not valid", code: rc))
        }
        return errors
    }
}

@available(*, unavailable)
extension SchemaValidator: Sendable {}
