// SPDX-License-Identifier: MIT
import CPNG

/// A PNG file read back into 8-bit RGBA pixels with libpng (the history map's tests look at tiles' pixels).
public final class PNGDecoder {
    /// libpng's control structure; freed in `deinit` whatever happened.
    private var image = png_image()

    /// A decoder for one file.
    public init() { image.version = CPNG_IMAGE_VERSION }

    deinit { png_image_free(&image) }

    /// The picture's width, height and pixels (rows top to bottom, R, G, B, A a pixel).
    public func decode(_ bytes: [UInt8]) throws(PNGError) -> (width: Int, height: Int, rgba: [UInt8]) {
        try check(png_image_begin_read_from_memory(&image, bytes, bytes.count))
        image.format = CPNG_FORMAT_RGBA
        var pixels = [UInt8](repeating: 0, count: Int(image.width) * Int(image.height) * 4)
        try check(png_image_finish_read(&image, nil, &pixels, 0, nil))
        return (Int(image.width), Int(image.height), pixels)
    }

    /// The one place a libpng failure becomes a Swift error, with the library's own words.
    private func check(_ ok: Int32) throws(PNGError) {
        guard ok == 0 || image.warning_or_error & 2 != 0 else { return }
        throw .libpng(withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }
}
