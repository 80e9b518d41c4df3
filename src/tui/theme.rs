//! Colours. The UI draws with a small semantic palette; the config's
//! `[theme]` table maps each role to any colour the terminal has, and
//! `NO_COLOR` takes colour out altogether. Both are applied to the finished
//! frame, so every pane follows without knowing about themes.

use std::str::FromStr;

use ratatui::buffer::Buffer;
use ratatui::style::Color;

/// The roles, with the colour each is drawn in before the theme applies.
pub const ROLES: [(&str, Color, &str); 7] = [
    ("accent", Color::Cyan, "focused pane, keys, types"),
    ("ok", Color::Green, "connected, valid, read-only"),
    ("error", Color::Red, "failed, errors, destructive"),
    ("warn", Color::Yellow, "pending, findings, messages"),
    ("muted", Color::DarkGray, "hints, secondary text"),
    ("link", Color::Blue, "links, outgoing frames"),
    ("media", Color::Magenta, "images and audio"),
];

/// How the palette is drawn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Theme {
    /// (drawn as, shown as) for each role the user changed.
    remap: Vec<(Color, Color)>,
    no_color: bool,
}

impl Theme {
    /// From the config's `[theme]` entries; errors name the role or colour.
    pub fn from_config(entries: &[(String, String)], no_color: bool) -> Result<Theme, String> {
        let mut remap = Vec::new();
        for (role, value) in entries {
            let Some((_, base, _)) = ROLES.iter().find(|(name, _, _)| name == role) else {
                let names: Vec<&str> = ROLES.iter().map(|r| r.0).collect();
                let hint = names
                    .iter()
                    .map(|n| (strsim::jaro_winkler(n, role), n))
                    .filter(|(score, _)| *score > 0.8)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, n)| format!("; did you mean `{n}`?"))
                    .unwrap_or_else(|| format!("; the roles are: {}", names.join(", ")));
                return Err(format!("unknown colour role `{role}` in [theme]{hint}"));
            };
            let color = Color::from_str(value).map_err(|_| {
                format!("[theme] {role}: {value:?} is not a colour; write a name (\"red\", \"light-blue\"), \"#rrggbb\" or an index 0-255")
            })?;
            remap.push((*base, color));
        }
        Ok(Theme { remap, no_color })
    }

    pub fn no_color(&self) -> bool {
        self.no_color
    }

    fn map(&self, c: Color) -> Color {
        if self.no_color {
            return Color::Reset;
        }
        self.remap
            .iter()
            .find(|(from, _)| *from == c)
            .map(|(_, to)| *to)
            .unwrap_or(c)
    }

    /// Apply to a finished frame.
    pub fn apply(&self, buf: &mut Buffer) {
        if !self.no_color && self.remap.is_empty() {
            return;
        }
        for cell in buf.content.iter_mut() {
            cell.fg = self.map(cell.fg);
            cell.bg = self.map(cell.bg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_map_and_errors_name_the_fix() {
        let t = Theme::from_config(
            &[
                ("accent".into(), "#ff8800".into()),
                ("error".into(), "light-red".into()),
            ],
            false,
        )
        .unwrap();
        assert_eq!(t.map(Color::Cyan), Color::Rgb(0xff, 0x88, 0x00));
        assert_eq!(t.map(Color::Red), Color::LightRed);
        assert_eq!(t.map(Color::Green), Color::Green);
        let e = Theme::from_config(&[("acent".into(), "red".into())], false).unwrap_err();
        assert!(e.contains("did you mean `accent`"), "{e}");
        let e = Theme::from_config(&[("ok".into(), "greenish".into())], false).unwrap_err();
        assert!(e.contains("is not a colour"), "{e}");
        let none = Theme::from_config(&[], true).unwrap();
        assert_eq!(none.map(Color::Cyan), Color::Reset);
    }
}
