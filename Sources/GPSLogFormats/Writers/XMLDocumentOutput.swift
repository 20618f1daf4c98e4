// SPDX-License-Identifier: MIT
import GPSLogXML

extension TrackOutputs {
    /// Writes output 0 as one XML document: the `root` element with its attributes (in this order), what `body`
    /// writes inside it, then the end, committed. For the formats that are XML (GPX, KML, the session export).
    func writeXML(root: String, attributes: KeyValuePairs<String, String>, _ body: (XMLStreamWriter) throws -> Void)
        throws
    {
        let out = try open(0)
        // Straight to the descriptor: libxml2's writer buffers on its own.
        let w = try XMLStreamWriter(fileDescriptor: out.descriptor, destination: out.path)
        try w.startDocument()
        try w.startElement(root)
        for (name, value) in attributes { try w.attribute(name, value) }
        try body(w)
        try w.endElement()
        try w.finish()
        try out.commit()
    }
}
