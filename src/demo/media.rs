//! The demo server's binary content: its logo, a file in assets/demo/
//! embedded in the binary, and tiny hand-written encoders for what its
//! tools make on request: PNG (zlib "stored" deflate blocks, no
//! compression) and 16-bit PCM WAV.
//!
//! The encoders produce real, spec-conforming files that any decoder
//! accepts. What they make for `everything_mixed` is also in assets/demo/
//! (`swatch-16x16.png`, `tone-440hz-250ms.wav`); a test keeps those files
//! equal to what the code makes.

use base64::Engine as _;

/// Largest width or height `render_image` will produce.
pub const MAX_IMAGE_SIDE: u32 = 512;
/// Longest clip `make_sound` will produce, in milliseconds.
pub const MAX_SOUND_MS: u32 = 5000;
/// Sample rate of generated WAV files.
pub const SAMPLE_RATE: u32 = 8000;

/// Standard base64 (with padding), as MCP expects for `data` and `blob`.
pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) as used by PNG.
pub fn crc32(chunks: &[&[u8]]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (n, slot) in t.iter_mut().enumerate() {
            let mut c = n as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *slot = c;
        }
        t
    });
    let mut crc = 0xFFFF_FFFFu32;
    for chunk in chunks {
        for &b in *chunk {
            crc = table[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8);
        }
    }
    crc ^ 0xFFFF_FFFF
}

/// Adler-32 checksum as used by the zlib container.
pub fn adler32(data: &[u8]) -> u32 {
    const MOD: u32 = 65_521;
    let (mut a, mut b) = (1u32, 0u32);
    // 5552 is the largest n such that sums cannot overflow u32 before reduction.
    for block in data.chunks(5552) {
        for &byte in block {
            a += u32::from(byte);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

/// Wrap `data` in a zlib stream made of uncompressed ("stored") deflate blocks.
pub fn zlib_stored(data: &[u8]) -> Vec<u8> {
    const MAX_BLOCK: usize = 65_535;
    let blocks = data.len().div_ceil(MAX_BLOCK).max(1);
    let mut out = Vec::with_capacity(data.len() + blocks * 5 + 6);
    // CMF: deflate, 32K window; FLG: fastest compression level, FCHECK so that
    // (CMF*256 + FLG) % 31 == 0.
    out.extend_from_slice(&[0x78, 0x01]);
    if data.is_empty() {
        out.extend_from_slice(&[0x01, 0x00, 0x00, 0xFF, 0xFF]);
    } else {
        let mut chunks = data.chunks(MAX_BLOCK).peekable();
        while let Some(chunk) = chunks.next() {
            let last = chunks.peek().is_none();
            out.push(u8::from(last)); // BFINAL bit, BTYPE = 00 (stored)
            let len = chunk.len() as u16;
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&(!len).to_le_bytes());
            out.extend_from_slice(chunk);
        }
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    out.extend_from_slice(&crc32(&[kind, data]).to_be_bytes());
}

/// Encode an 8-bit RGB PNG whose pixels come from `pixel(x, y)`.
pub fn png_rgb(width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
    let (w, h) = (width.max(1), height.max(1));
    let mut raw = Vec::with_capacity(h as usize * (1 + 3 * w as usize));
    for y in 0..h {
        raw.push(0); // filter type: None
        for x in 0..w {
            raw.extend_from_slice(&pixel(x, y));
        }
    }
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    // bit depth 8, colour type 2 (truecolour), compression 0, filter 0, no interlace
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);

    let idat = zlib_stored(&raw);
    let mut png = Vec::with_capacity(idat.len() + 64);
    png.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    png_chunk(&mut png, b"IHDR", &ihdr);
    png_chunk(&mut png, b"IDAT", &idat);
    png_chunk(&mut png, b"IEND", &[]);
    png
}

/// Parse `#rgb`, `#rrggbb` (the `#` is optional) or one of a few colour names.
pub fn parse_color(s: &str) -> Option<[u8; 3]> {
    let named = match s.trim().to_ascii_lowercase().as_str() {
        "black" => Some([0, 0, 0]),
        "white" => Some([255, 255, 255]),
        "red" => Some([220, 40, 40]),
        "green" => Some([40, 170, 70]),
        "blue" => Some([0x33, 0x66, 0xff]),
        "yellow" => Some([250, 210, 40]),
        "orange" => Some([250, 140, 30]),
        "purple" => Some([140, 70, 200]),
        "gray" | "grey" => Some([128, 128, 128]),
        _ => None,
    };
    if named.is_some() {
        return named;
    }
    let hex = s.trim().strip_prefix('#').unwrap_or(s.trim());
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let digit = |i: usize| u8::from_str_radix(&hex[i..=i], 16).ok();
    match hex.len() {
        3 => Some([digit(0)? * 17, digit(1)? * 17, digit(2)? * 17]),
        6 => Some([
            u8::from_str_radix(&hex[0..2], 16).ok()?,
            u8::from_str_radix(&hex[2..4], 16).ok()?,
            u8::from_str_radix(&hex[4..6], 16).ok()?,
        ]),
        _ => None,
    }
}

/// The `render_image` picture: `color` shaded from full brightness at the top
/// to 60% at the bottom, so it is visibly an image and not a flat swatch.
pub fn render_swatch(width: u32, height: u32, color: [u8; 3]) -> Vec<u8> {
    let w = width.clamp(1, MAX_IMAGE_SIDE);
    let h = height.clamp(1, MAX_IMAGE_SIDE);
    let rows: Vec<[u8; 3]> = (0..h)
        .map(|y| {
            let f = if h > 1 {
                1.0 - 0.4 * f64::from(y) / f64::from(h - 1)
            } else {
                1.0
            };
            color.map(|c| (f64::from(c) * f).round() as u8)
        })
        .collect();
    png_rgb(w, h, |_, y| rows[y as usize])
}

/// The 32x32 `demo://logo.png` resource (assets/demo/logo.png): a blue
/// ring on a light background.
pub fn logo_png() -> Vec<u8> {
    include_bytes!("../../assets/demo/logo.png").to_vec()
}

/// A mono 16-bit PCM WAV at [`SAMPLE_RATE`] containing a sine tone, with short
/// fades at both ends so it does not click.
pub fn sine_wav(duration_ms: u32, frequency: f64) -> Vec<u8> {
    let duration_ms = duration_ms.min(MAX_SOUND_MS);
    let samples = (u64::from(SAMPLE_RATE) * u64::from(duration_ms) / 1000) as usize;
    let fade = (SAMPLE_RATE as usize / 200).min(samples / 2); // 5 ms
    let data_len = (samples * 2) as u32;

    let mut wav = Vec::with_capacity(44 + samples * 2);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVE");
    wav.extend_from_slice(b"fmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&SAMPLE_RATE.to_le_bytes());
    wav.extend_from_slice(&(SAMPLE_RATE * 2).to_le_bytes()); // byte rate
    wav.extend_from_slice(&2u16.to_le_bytes()); // block align
    wav.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());

    let step = std::f64::consts::TAU * frequency / f64::from(SAMPLE_RATE);
    for i in 0..samples {
        let mut amp = 0.5;
        if fade > 0 {
            let edge = i.min(samples - 1 - i);
            if edge < fade {
                amp *= edge as f64 / fade as f64;
            }
        }
        let v = (amp * (step * i as f64).sin() * f64::from(i16::MAX)).round() as i16;
        wav.extend_from_slice(&v.to_le_bytes());
    }
    wav
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inflate a zlib stream made only of stored blocks (what we emit).
    fn inflate_stored(z: &[u8]) -> Vec<u8> {
        assert_eq!((u16::from(z[0]) * 256 + u16::from(z[1])) % 31, 0);
        let mut out = Vec::new();
        let mut i = 2;
        loop {
            let header = z[i];
            assert_eq!(header & 0b110, 0, "stored block expected");
            let len = u16::from_le_bytes([z[i + 1], z[i + 2]]) as usize;
            let nlen = u16::from_le_bytes([z[i + 3], z[i + 4]]);
            assert_eq!(!(len as u16), nlen);
            out.extend_from_slice(&z[i + 5..i + 5 + len]);
            i += 5 + len;
            if header & 1 == 1 {
                break;
            }
        }
        let adler = u32::from_be_bytes(z[i..i + 4].try_into().unwrap());
        assert_eq!(adler, adler32(&out));
        assert_eq!(i + 4, z.len());
        out
    }

    #[test]
    fn crc_and_adler_known_values() {
        assert_eq!(crc32(&[b"123456789"]), 0xCBF4_3926);
        assert_eq!(crc32(&[b"IEND"]), 0xAE42_6082);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
    }

    #[test]
    fn png_is_well_formed_and_large_images_span_blocks() {
        let png = render_swatch(300, 300, [1, 2, 3]);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 300);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 300);
        let idat_len = u32::from_be_bytes(png[33..37].try_into().unwrap()) as usize;
        assert_eq!(&png[37..41], b"IDAT");
        let idat = &png[41..41 + idat_len];
        let crc = u32::from_be_bytes(png[41 + idat_len..45 + idat_len].try_into().unwrap());
        assert_eq!(crc, crc32(&[b"IDAT", idat]));
        let raw = inflate_stored(idat);
        assert_eq!(raw.len(), 300 * (1 + 300 * 3));
        assert_eq!(&raw[1..4], &[1, 2, 3]);
        assert!(png.ends_with(&[0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82]));
    }

    #[test]
    fn empty_zlib_stream_is_valid() {
        assert!(inflate_stored(&zlib_stored(&[])).is_empty());
    }

    #[test]
    fn colors() {
        assert_eq!(parse_color("#3366ff"), Some([0x33, 0x66, 0xff]));
        assert_eq!(parse_color("36f"), Some([0x33, 0x66, 0xff]));
        assert_eq!(parse_color("Red"), Some([220, 40, 40]));
        assert_eq!(parse_color("#12345"), None);
        assert_eq!(parse_color("#zzzzzz"), None);
        assert_eq!(parse_color("#é12"), None);
    }

    /// A PNG's width and height, after checking the signature and every
    /// chunk's CRC.
    fn png_size(png: &[u8]) -> (u32, u32) {
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let mut i = 8;
        while i < png.len() {
            let len = u32::from_be_bytes(png[i..i + 4].try_into().unwrap()) as usize;
            let (kind, data) = (&png[i + 4..i + 8], &png[i + 8..i + 8 + len]);
            let crc = u32::from_be_bytes(png[i + 8 + len..i + 12 + len].try_into().unwrap());
            assert_eq!(
                crc,
                crc32(&[kind, data]),
                "{:?}",
                String::from_utf8_lossy(kind)
            );
            i += 12 + len;
        }
        assert_eq!(i, png.len());
        let at = |o: usize| u32::from_be_bytes(png[o..o + 4].try_into().unwrap());
        (at(16), at(20))
    }

    fn decoded(block: &serde_json::Value, field: &str) -> Vec<u8> {
        use base64::Engine as _;
        let data = block[field].as_str().unwrap();
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .unwrap()
    }

    #[test]
    fn the_logo_is_the_file_in_assets_and_what_the_resource_serves() {
        let file = include_bytes!("../../assets/demo/logo.png");
        assert_eq!(logo_png(), file);
        assert_eq!(png_size(file), (32, 32));
        let served = super::super::catalog::logo_contents();
        assert_eq!(served["mimeType"], "image/png");
        assert_eq!(decoded(&served, "blob"), file);
    }

    #[test]
    fn the_media_in_assets_are_what_everything_mixed_sends() {
        let png = include_bytes!("../../assets/demo/swatch-16x16.png");
        let wav = include_bytes!("../../assets/demo/tone-440hz-250ms.wav");
        // What the code makes…
        assert_eq!(render_swatch(16, 16, [0x33, 0x66, 0xff]), png);
        assert_eq!(sine_wav(250, 440.0), wav);
        assert_eq!(png_size(png), (16, 16));
        // …and what the tool sends.
        let result = super::super::catalog::everything_mixed();
        let blocks = result["content"].as_array().unwrap();
        let block = |kind: &str| blocks.iter().find(|b| b["type"] == kind).unwrap();
        assert_eq!(decoded(block("image"), "data"), png);
        assert_eq!(decoded(block("audio"), "data"), wav);
    }

    #[test]
    fn wav_header() {
        let wav = sine_wav(250, 440.0);
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(&wav[8..16], b"WAVEfmt ");
        assert_eq!(u32::from_le_bytes(wav[40..44].try_into().unwrap()), 4000);
        assert_eq!(wav.len(), 44 + 4000);
        assert_eq!(sine_wav(0, 440.0).len(), 44);
        assert_eq!(sine_wav(99_999, 440.0).len(), 44 + 80_000);
    }
}
