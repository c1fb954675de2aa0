"""What the citation pipeline keeps on disk between processes: parsed files, cleaned chunks, locate
answers, issued citations, compiled regexes.
"""
