// SPDX-License-Identifier: MIT
import CPNG
import FoundationEssentials  // LocalizedError

/// PNG pictures written with Debian's libpng (its simplified `png_image` API): 8-bit RGBA pixels in, the file's
/// bytes out.
public final class PNGEncoder {
    /// libpng's control structure; its internal state is freed in `deinit` whatever happened.
    private var image = png_image()

    /// An encoder for one picture of `width` × `height` pixels.
    public init(width: Int, height: Int) {
        image.version = CPNG_IMAGE_VERSION
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = CPNG_FORMAT_RGBA
    }

    deinit { png_image_free(&image) }

    /// The PNG file of `pixels`: rows top to bottom, 4 bytes (R, G, B, A) a pixel.
    public func encode(rgba pixels: [UInt8]) throws(PNGError) -> [UInt8] {
        let expected = Int(image.width) * Int(image.height) * 4
        guard pixels.count == expected else { throw .wrongPixelCount(expected: expected, given: pixels.count) }
        var size: png_alloc_size_t = 0
        // Asked once for the size (no memory given), then written.
        try check(png_image_write_to_memory(&image, nil, &size, 0, pixels, 0, nil))
        var out = [UInt8](repeating: 0, count: Int(size))
        try check(png_image_write_to_memory(&image, &out, &size, 0, pixels, 0, nil))
        return Array(out.prefix(Int(size)))
    }

    /// The one place a libpng failure becomes a Swift error, with the library's own words.
    private func check(_ ok: Int32) throws(PNGError) {
        guard ok == 0 || image.warning_or_error & 2 != 0 else { return }
        let message = withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        throw .libpng(message)
    }
}

/// Why a PNG could not be written.
public enum PNGError: LocalizedError, Equatable {
    /// libpng refused (its message).
    case libpng(String)
    /// The pixels do not fill the picture.
    case wrongPixelCount(expected: Int, given: Int)

    /// For people: what failed.
    public var errorDescription: String? {
        switch self {
        case .libpng(let message): "writing a PNG failed: libpng said \(message)"
        case .wrongPixelCount(let expected, let given):
            "writing a PNG failed: \(given) bytes of pixels given for a picture of \(expected)"
        }
    }
}
