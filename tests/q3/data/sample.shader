// A small shader script in the Quake 3 syntax, written for bspkit's tests and fuzz seeds.
textures/bk/sky
{
	qer_editorimage textures/bk/sky_editor.tga
	surfaceparm noimpact
	surfaceparm nolightmap
	surfaceparm sky
	skyparms env/bk_sky 512 -
	{
		map textures/bk/clouds.tga
		tcMod scroll 0.02 0.01
	}
}

textures/bk/grate
{
	cull none
	surfaceparm alphashadow
	{
		map textures/bk/grate.tga
		alphaFunc GE128
		depthWrite
	}
	{
		map $lightmap
		blendFunc GL_DST_COLOR GL_ZERO
		depthFunc equal
	}
}

/* a multi-line comment
   with { braces } inside */
textures/bk/glass { { animMap 4 textures/bk/glass1.jpg textures/bk/glass2.jpg
		blendfunc GL_SRC_ALPHA GL_ONE_MINUS_SRC_ALPHA } }
