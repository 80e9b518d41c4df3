//! `mcpdeck completions SHELL`: clap_complete's script for the shell, plus,
//! for bash, zsh and fish, the completion of server names, asked of the
//! hidden `mcpdeck __servers` (which lists the configured names, reading
//! the file named by a `--config FILE` on the line being completed).
//!
//! Where names complete: bash and fish, the word after a command that takes
//! a server (`remove`, `enable`, `disable`, `deny`, `allow`, `info`, `tools`, `tool`,
//! `call`, `smoke`, `resources`, `templates`, `read`, `prompts`, `prompt`,
//! `complete`, `serve`, `auth login`, `auth logout`); zsh, the SERVER or TARGET
//! argument of those commands (not `call`'s words). Elvish and PowerShell
//! complete commands and flags only.

use clap::{Args, Command};
use clap_complete::Shell;

use super::exit::{Exit, Outcome};

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell
    #[arg(value_name = "SHELL")]
    pub shell: Shell,
}

/// The hidden command that lists the server names.
const NAMES_CMD: &str = "__servers";

/// The commands whose next word is a server name (`login` and `logout`
/// are `auth`'s).
const TAKES_SERVER: &str = "remove enable disable deny allow info tools tool call smoke resources templates read prompts prompt complete login logout lint pin verify bench serve";

/// The completion script for `shell` of the command line `cli` (mcpdeck's,
/// [`super::Cli`]).
pub fn script(shell: Shell, mut cli: Command) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cli, "mcpdeck", &mut out);
    let script = String::from_utf8_lossy(&out).into_owned();
    match shell {
        Shell::Bash => bash(&script),
        Shell::Zsh => zsh(&script),
        Shell::Fish => fish(&script),
        _ => script,
    }
}

/// Print the completion script of the command line `cli`.
pub fn print(a: &CompletionsArgs, cli: Command) -> Outcome {
    out!("{}", script(a.shell, cli));
    Ok(Exit::Ok)
}

fn bash(script: &str) -> String {
    // The hidden command is not offered.
    let script = script
        .replace(&format!(" {NAMES_CMD} "), " ")
        .replace("complete -F _mcpdeck ", "complete -F _mcpdeck_servers ");
    let cases = TAKES_SERVER.replace(' ', "|");
    format!(
        r#"{script}
# Server names from the config (`mcpdeck {NAMES_CMD}`), after the commands that take one.
_mcpdeck_servers() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" i config=()
    case "$prev" in
        {cases})
            if [[ "$cur" != -* ]]; then
                for (( i = 1; i < COMP_CWORD; i++ )); do
                    case "${{COMP_WORDS[i]}}" in
                        --config) config=(--config "${{COMP_WORDS[i+1]/#\~/$HOME}}") ;;
                        --config=*) config=("--config=${{COMP_WORDS[i]#--config=}}") ;;
                    esac
                done
                COMPREPLY=( $(compgen -W "$(command mcpdeck "${{config[@]}}" {NAMES_CMD} 2>/dev/null)" -- "$cur") )
                [[ ${{#COMPREPLY[@]}} -gt 0 ]] && return 0
            fi
            ;;
    esac
    _mcpdeck "$@"
}}
"#
    )
}

fn zsh(script: &str) -> String {
    let mut out = String::with_capacity(script.len() + 1024);
    let names_fn = format!(
        r#"(( $+functions[_mcpdeck_server_names] )) ||
_mcpdeck_server_names() {{
    local -a names config
    local i
    for (( i = 1; i < $#words; i++ )); do
        case ${{words[i]}} in
            --config) config=(--config ${{~words[i+1]}}) ;;
            --config=*) config=(${{~words[i]}}) ;;
        esac
    done
    names=(${{(f)"$(_call_program servers mcpdeck ${{config}} {NAMES_CMD} 2>/dev/null)"}})
    if (( $#names )); then
        _describe -t servers 'configured server' names
    else
        _default
    fi
}}

"#
    );
    for line in script.split_inclusive('\n') {
        if line.starts_with("if [ \"$funcstack[1]\" = \"_mcpdeck\" ]") {
            out.push_str(&names_fn);
        }
        let is_server = [
            "':server -- ",
            "'::server -- ",
            "':target -- ",
            "'::target -- ",
            "'*::servers -- ",
        ]
        .iter()
        .any(|start| line.starts_with(start))
            && line.trim_end().ends_with(":_default' \\");
        let is_hidden = line.contains(&format!("'{NAMES_CMD}:"));
        if is_server {
            out.push_str(&line.replacen(":_default' \\", ":_mcpdeck_server_names' \\", 1));
        } else if !is_hidden {
            out.push_str(line);
        }
    }
    out
}

fn fish(script: &str) -> String {
    // The hidden command is not offered.
    let script: String = script
        .split_inclusive('\n')
        .filter(|line| !line.contains(&format!("-a \"{NAMES_CMD}\"")))
        .collect();
    format!(
        r#"{script}
# Server names from the config (`mcpdeck {NAMES_CMD}`), after the commands that take one.
function __fish_mcpdeck_server_names
    set -l words (commandline -opc)
    set -l config
    for i in (seq (count $words))
        switch $words[$i]
            case --config
                set -l next (math $i + 1)
                if test $next -le (count $words)
                    set config --config $words[$next]
                end
            case '--config=*'
                set config $words[$i]
        end
    end
    command mcpdeck $config {NAMES_CMD} 2>/dev/null
end
function __fish_mcpdeck_wants_server
    set -l words (commandline -opc)
    contains -- $words[-1] {TAKES_SERVER}
end
complete -c mcpdeck -n __fish_mcpdeck_wants_server -f -a "(__fish_mcpdeck_server_names)" -d 'configured server'
"#
    )
}
