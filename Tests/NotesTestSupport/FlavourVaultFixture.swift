/// A small vault in the shape of a real one: notes in several languages (Arabic and Hebrew
/// right to left), each holding every construct of the default flavour, with an image. The
/// renderer's tests read it in NotesCore, export's through the real `notes` binary.
public enum FlavourVaultFixture {
    public static let image = "attachments/diagrama.png"

    public static let notes: [String: String] = [
        "en/Welcome.md": """
            ---
            title: Welcome
            aliases: [Start]
            tags: [guide, en/intro]
            status: draft
            ---
            # Welcome

            > [!tip] Read *this* first
            > See [[Funções#hasTag|`hasTag`]] and [[Filtros#|filters]].

            | Key | Value |
            |:----|------:|
            | a   | ~~1~~ |

            - [x] done
            - [ ] open

            ==Important== %%hidden note%% #project/alpha, footnote[^1], www.example.com and $e^{i\\pi} + 1 = 0$.

            $$
            \\int_0^1 x\\,dx
            $$

            ```swift
            let x = 1
            ```

            ```mermaid
            graph TD; A-->B
            ```

            ![[diagrama.png#interface]]

            [^1]: A footnote.

            """,
        "pt/Funções.md": """
            ---
            tags: funções
            ---
            # Funções

            ## hasTag

            > [!warning]- Atenção
            > Conteúdo ==destacado== com #etiqueta e [[Welcome]].

            | Nome | Descrição |
            |---|:---:|
            | `hasTag` | verifica |

            """,
        "pt/Filtros.md": "# Filtros\n\n- [ ] filtrar #filtro $x_1$\n",
        "ja/ようこそ.md": "---\ntitle: ようこそ\ntags: [日本語]\n---\n> [!note] メモ\n> ==重要== #タグ と [[Welcome|ようこそ]]。\n",
        "ar/مرحبا.md": "---\ntitle: مرحبا\n---\n# مرحبا\n\n> [!info] ملاحظة\n> نص ==مهم== مع #وسم و [[Filtros]].\n\n| عمود | قيمة |\n|---|---|\n| أ | ب |\n",
        "he/שלום.md": "# שלום\n\n%%הערה%% טקסט ==מודגש== #תגית [[ようこそ]] $a^2$\n\n- [x] משימה\n",
        "ru/Привет.md": """
            ---
            title: Привет
            tags: [русский]
            автор: Иван
            ---
            # Заголовок

            > [!question]+ Вопрос
            > Текст с ==выделением== и ~~зачёркнутым~~ #заметка[^н].

            | Слово | Перевод |
            |:-----:|---------|
            | мир   | world   |

            - [ ] задача

            ![[Funções#hasTag]]

            [^н]: Сноска.

            """,
    ]

    /// Every path of the vault, notes and the image.
    public static var files: [String] { Array(notes.keys) + [image] }
}
